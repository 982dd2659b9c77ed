/*
 * What one sandboxed process may do, resolved from the config: the files it may write (and the
 * ones it may not even read), the network it may reach, the limits it runs under. The config's
 * shapes (`servers.<name>.sandbox`, `sandbox:`) are turned into this by the part that launches.
 */

/** Network of a sandboxed process: the host's (`open`), none at all, or only through the egress proxy. */
export type SandboxNetwork =
  | { mode: 'open' }
  | { mode: 'none' }
  | {
      mode: 'allow';
      /** `host[:port]` patterns (`host-pattern.ts`); everything else is refused by the proxy. */
      allow: readonly string[];
    };

/** Limits the launcher inside the sandbox enforces (`sandbox-launcher.ts` says how). */
export interface SandboxLimits {
  /** Resident memory of all the sandbox's processes together, MiB. */
  memoryMb?: number | undefined;
  /** Processes alive at once in the sandbox (threads not counted). */
  pids?: number | undefined;
  /** CPU time used by the sandbox's processes, seconds. */
  cpuSeconds?: number | undefined;
}

/** Which egress decisions are logged: refused ones only (default), or every one. */
export type SandboxAudit = 'refused' | 'all';

/** One sandboxed process's profile, resolved (absolute paths; checked at config load). */
export interface SandboxProfile {
  /** Whose sandbox: a server's name in logs, metrics and messages. */
  label: string;
  /** The bubblewrap binary (`detectSandboxEngine().path`). */
  bwrap: string;
  /** Writable; the process's HOME and TMPDIR. Created when missing. */
  scratchDir: string;
  /** Directories it may write besides the scratch one (existing, absolute). */
  writable: readonly string[];
  /** Paths it may not read (those that exist are masked: a directory shows empty, a file empty). */
  deny: readonly string[];
  /** Paths inside denied ones that stay readable (the package cache inside the state directory). */
  readable?: readonly string[];
  network: SandboxNetwork;
  /** Variables of the process's environment bound to hosts: it sees a placeholder (`egress-proxy.ts`). */
  secrets?: Readonly<Record<string, readonly string[]>>;
  limits?: SandboxLimits;
  audit?: SandboxAudit;
}

/** How a sandboxed server is confined, as `/readyz`, `doctor` and the console show it. */
export interface SandboxSummary {
  /** `bwrap`, or `none` when it runs unconfined (with `reason`). */
  engine: 'bwrap' | 'none';
  /** `open`, `none`, or the allowed host patterns. */
  network: 'open' | 'none' | readonly string[];
  /** What it may write. */
  writable: readonly string[];
  limits?: SandboxLimits;
  /** Why it is not sandboxed (`engine: none`). */
  reason?: string;
}

/** The summary of a profile. */
export function summariseProfile(profile: SandboxProfile): SandboxSummary {
  const { network } = profile;
  return {
    engine: 'bwrap',
    network: network.mode === 'allow' ? [...network.allow] : network.mode,
    writable: [profile.scratchDir, ...profile.writable],
    ...(profile.limits === undefined ? {} : { limits: profile.limits }),
  };
}

/** The gateway-wide `sandbox` settings a launch needs (the config's `sandbox` section). */
export interface SandboxDefaults {
  default: 'on' | 'off' | 'required';
  audit: SandboxAudit;
}
