import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { recordEgress } from '../../foundation/sandbox/egress-tally.js';
import { launchSandboxed } from '../../foundation/sandbox/sandboxed-spawn.js';
import { type ServerSandboxPlan, takeUnconfinedWarning } from '../sandbox/server-sandbox.js';
import { spawnFailure } from './spawn-failure.js';

/** What a sandboxed start changes in the transport's options. */
export interface ConfinedStart {
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** The environment is exactly `env` (no variables inherited from the gateway). */
  isolatedEnv?: boolean;
  /** Released once the process has ended (the egress proxy). */
  release?: () => Promise<void>;
  /** The server's name: the transport reads the launcher's limit lines. */
  sandboxed?: string;
}

/**
 * How to start a stdio server under `plan`: unchanged when sandboxing is off; unchanged with one
 * warning (per process) when no engine exists and the sandbox is not required; refused
 * (`backend_unavailable`, not retried) when it is required; else bubblewrap around the command,
 * with the egress proxy when the network is an allow list. Egress decisions are logged (refused
 * ones always, allowed ones with `sandbox.audit: all`) and counted.
 */
export async function sandboxedStart(
  plan: ServerSandboxPlan | undefined,
  request: { command: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd?: string },
  log: Logger,
): Promise<ConfinedStart> {
  if (plan === undefined || plan.kind === 'off') return {};
  if (plan.kind === 'unconfined') {
    if (takeUnconfinedWarning()) {
      log.warn({ reason: plan.reason }, 'stdio servers run unsandboxed: no sandbox engine here');
    }
    return {};
  }
  if (plan.kind === 'refused') {
    throw new GatewayError('backend_unavailable', plan.reason, {
      retryable: false,
      details: { permanent: true, reason: 'sandbox_unavailable' },
    });
  }
  const { profile } = plan;
  const warned = new Set<string>();
  try {
    const launch = await launchSandboxed(profile, request, {
      onEgress: (event) => {
        recordEgress(profile.label, event.host, event.decision);
        if (event.decision === 'refused') {
          log.warn(
            { server: profile.label, host: event.host, decision: event.decision },
            'sandbox refused a connection',
          );
        } else if (profile.audit === 'all') {
          log.info(
            { server: profile.label, host: event.host, decision: event.decision },
            'sandbox allowed a connection',
          );
        }
        const secret = event.secretNotSubstituted;
        if (secret !== undefined && !warned.has(secret)) {
          warned.add(secret);
          log.warn(
            { server: profile.label, host: event.host, secret },
            'a bound secret cannot be put into an HTTPS (CONNECT) request: the server sends its placeholder',
          );
        }
      },
    });
    return {
      command: launch.command,
      args: launch.args,
      env: launch.env,
      isolatedEnv: true,
      release: launch.close,
      sandboxed: profile.label,
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw spawnFailure(request.command, error as NodeJS.ErrnoException);
    }
    throw new GatewayError(
      'backend_unavailable',
      `cannot prepare the sandbox of ${profile.label}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
