import type { PublishEntries, SourceState } from '../../catalog/source.js';
import type { DownstreamCallObserver } from '../../foundation/ports/operation-observer.js';
import type { SandboxSummary } from '../../foundation/sandbox/sandbox-profile.js';
import { planSummary } from '../sandbox/server-sandbox.js';
import type { DriverSource } from '../source-driver.js';
import { DownstreamServer, type DownstreamServerOptions } from './downstream-server.js';
import type { DownstreamTarget } from './open-connection.js';
import { npxLaunchOf } from './package-cache.js';

/** How a stdio target is sandboxed, for `/readyz` (nothing for a remote server). */
function sandboxOf(target: DownstreamTarget): { sandbox?: SandboxSummary } {
  if (target.kind !== 'stdio' || target.sandbox === undefined) return {};
  return { sandbox: planSummary(target.sandbox) };
}

/** The package an `npx` server's cache is installing now (`/readyz`, doctor: `installing`). */
function installingPackage(target: DownstreamTarget): string | undefined {
  if (target.kind !== 'stdio' || target.packages === undefined) return undefined;
  const launch = npxLaunchOf(target.command, target.args);
  return launch !== undefined && target.packages.isInstalling(launch.spec) ? launch.spec : undefined;
}

/**
 * A downstream MCP server as a `Source`: the server is created (and starts connecting) on
 * `start`, publishes after every (re-)listing, and its first connection attempt is the first try.
 */
export class McpServerSource implements DriverSource {
  readonly kind = 'mcp' as const;
  readonly id: string;
  private running: DownstreamServer | undefined;
  private observer: DownstreamCallObserver | undefined;
  /** Tools of the last listing the catalog refused (another source registered them first). */
  private refused = 0;

  constructor(private readonly options: Omit<DownstreamServerOptions, 'publish'>) {
    this.id = `mcp:${options.name}`;
  }

  /** The supervised server, once started. */
  get server(): DownstreamServer | undefined {
    return this.running;
  }

  /** Tells `observer` of every `tools/call` sent (spans); only before `start`. */
  observe(observer: DownstreamCallObserver): void {
    this.observer = observer;
  }

  start(publish: PublishEntries): Promise<void> {
    this.running ??= new DownstreamServer({
      ...this.options,
      ...(this.observer ? { observer: this.observer } : {}),
      publish: (entries) => {
        this.refused = publish(entries).length;
      },
    });
    return this.running.firstAttempt;
  }

  state(): SourceState {
    const sandbox = sandboxOf(this.options.target);
    if (!this.running) return { state: 'connecting', tools: 0, ...sandbox };
    const snapshot = this.running.snapshot();
    const installing = installingPackage(this.options.target);
    return {
      ...sandbox,
      // A stopped server serves nothing: for readiness it is as good as failed.
      state: snapshot.state === 'stopped' ? 'failed' : snapshot.state,
      // What the catalog holds of it, as for every source: refused duplicates are not its tools.
      tools: Math.max(0, snapshot.tools - this.refused),
      ...(snapshot.transport ? { transport: snapshot.transport } : {}),
      ...(snapshot.protocolVersion ? { protocolVersion: snapshot.protocolVersion } : {}),
      ...(snapshot.lastError ? { lastError: snapshot.lastError } : {}),
      ...(installing === undefined ? {} : { installing }),
      transitions: this.running.transitions(),
    };
  }

  /** Admin-only details: since when connected, the last stderr lines (see `DownstreamServer.details`). */
  details(): { connectedAt?: string; stderr: string[] } {
    return this.running?.details() ?? { stderr: [] };
  }

  async stop(): Promise<void> {
    await this.running?.stop();
  }
}
