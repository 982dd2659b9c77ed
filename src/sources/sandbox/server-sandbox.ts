import { statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { credentialPaths } from '../../foundation/sandbox/credential-paths.js';
import { detectSandboxEngine } from '../../foundation/sandbox/sandbox-engine.js';
import type {
  SandboxDefaults,
  SandboxProfile,
  SandboxSummary,
} from '../../foundation/sandbox/sandbox-profile.js';
import { summariseProfile } from '../../foundation/sandbox/sandbox-profile.js';
import type { ServerSandboxConfig } from '../../foundation/sandbox/sandbox-schema.js';

/** What the gateway tells the sources about sandboxing (from `sandbox:` and where it keeps state). */
export interface SandboxContext {
  settings: SandboxDefaults;
  /** The gateway's state directory: unreadable inside, except its package cache. */
  stateDir?: string;
  /** The config file: unreadable inside (it may hold secrets). */
  configFile?: string;
  /** More paths unreadable inside: the folders of the `directory` secret providers. */
  secretPaths?: readonly string[];
}

/** How one stdio server is to be started. */
export type ServerSandboxPlan =
  | { kind: 'off' }
  /** Wanted but no engine here, and not required: runs unconfined (one warning says why). */
  | { kind: 'unconfined'; reason: string }
  /** Required but no engine here: the server does not start. */
  | { kind: 'refused'; reason: string }
  | { kind: 'sandboxed'; profile: SandboxProfile };

let warnedUnconfined = false;

/** Whether the one "no engine here" warning is still to be given (and marks it given). */
export function takeUnconfinedWarning(): boolean {
  if (warnedUnconfined) return false;
  warnedUnconfined = true;
  return true;
}

/** `name` made safe as a folder name. */
function folderName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_') || 'server';
}

/**
 * The existing absolute directories among a server's arguments: how filesystem-style servers are
 * told their root, so they count as granted for writing (`/` itself never does).
 */
export function directoriesInArgs(args: readonly string[]): string[] {
  const found: string[] = [];
  for (const arg of args) {
    if (!path.isAbsolute(arg) || path.resolve(arg) === '/') continue;
    try {
      if (statSync(arg).isDirectory() && !found.includes(arg)) found.push(arg);
    } catch {
      // Not a path, or not there.
    }
  }
  return found;
}

/**
 * The directories a server's own `env` points it at: an existing absolute directory, or the folder
 * of an absolute file path (`MEMORY_FILE_PATH=/data/memory.jsonl`: the memory server writes a
 * temporary file beside it, then renames). How servers are told where to keep their data, so it
 * counts as granted — but never `/`, a top-level folder (`/etc`, `/tmp`) or the home directory.
 */
export function directoriesInEnv(env: Readonly<Record<string, string>>, home: string = homedir()): string[] {
  const found: string[] = [];
  for (const value of Object.values(env)) {
    if (!path.isAbsolute(value) || value.includes(path.delimiter)) continue;
    const resolved = path.resolve(value);
    const dir = isDirectory(resolved) ? resolved : path.dirname(resolved);
    if (!isDirectory(dir) || path.dirname(dir) === '/' || dir === '/' || dir === home) continue;
    if (!found.includes(dir)) found.push(dir);
  }
  return found;
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The plan of server `name`: off, sandboxed with its profile, or why not. The server's own
 * `sandbox` wins over `sandbox.default`; a profile object means `on` (`required` when the default
 * is). The engine is probed once per process (`detectSandboxEngine`).
 */
export function serverSandboxPlan(
  name: string,
  config: ServerSandboxConfig | undefined,
  args: readonly string[],
  context: SandboxContext,
  env: Readonly<Record<string, string>> = {},
): ServerSandboxPlan {
  const given = typeof config === 'string' ? config : undefined;
  const mode =
    given ??
    (config === undefined
      ? context.settings.default
      : context.settings.default === 'required'
        ? 'required'
        : 'on');
  if (mode === 'off') return { kind: 'off' };
  const engine = detectSandboxEngine();
  if (!engine.available) {
    const key = given === 'required' || config === undefined ? 'sandbox.default' : `servers.${name}.sandbox`;
    return mode === 'required'
      ? {
          kind: 'refused',
          reason: `${given === 'required' ? `servers.${name}.sandbox` : key} is "required" but no sandbox engine is available: ${engine.reason}`,
        }
      : { kind: 'unconfined', reason: engine.reason };
  }
  const profile = typeof config === 'object' ? config : undefined;
  const stateDir = context.stateDir;
  const scratchRoot = stateDir ?? path.join(tmpdir(), `aperture-sandbox-${process.getuid?.() ?? 'user'}`);
  const writable = [...(profile?.filesystem?.write ?? [])];
  for (const dir of [...directoriesInArgs(args), ...directoriesInEnv(env)]) {
    if (!writable.includes(dir)) writable.push(dir);
  }
  const deny = [
    ...credentialPaths(homedir()),
    ...(profile?.filesystem?.deny ?? []),
    ...(stateDir === undefined ? [] : [stateDir]),
    ...(context.configFile === undefined ? [] : [context.configFile]),
    ...(context.secretPaths ?? []),
  ];
  const network = profile?.network ?? 'open';
  return {
    kind: 'sandboxed',
    profile: {
      label: name,
      bwrap: engine.path,
      scratchDir: path.join(scratchRoot, 'sandbox', folderName(name)),
      writable,
      deny,
      ...(stateDir === undefined
        ? {}
        : { readable: [path.join(stateDir, 'packages'), ...inside(stateDir, args)] }),
      network: typeof network === 'string' ? { mode: network } : { mode: 'allow', allow: network.allow },
      ...(profile?.secrets === undefined
        ? {}
        : {
            secrets: Object.fromEntries(
              Object.entries(profile.secrets).map(([key, value]) => [key, value.hosts]),
            ),
          }),
      ...(profile?.limits === undefined ? {} : { limits: profile.limits }),
      audit: context.settings.audit,
    },
  };
}

/**
 * The absolute paths among `args` that lie inside `dir` (the masked state directory): a server
 * whose script or data the user keeps there still finds them, read-only.
 */
function inside(dir: string, args: readonly string[]): string[] {
  return args.filter((arg) => path.isAbsolute(arg) && arg.startsWith(`${dir}${path.sep}`));
}

/** How the plan shows in `/readyz`, `doctor` and the console. */
export function planSummary(plan: ServerSandboxPlan): SandboxSummary {
  switch (plan.kind) {
    case 'off':
      return { engine: 'none', network: 'open', writable: [], reason: 'sandbox: off in the config' };
    case 'sandboxed':
      return summariseProfile(plan.profile);
    default:
      return { engine: 'none', network: 'open', writable: [], reason: plan.reason };
  }
}
