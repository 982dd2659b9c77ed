import { existsSync } from 'node:fs';
import { downstreamTarget } from '../app/downstream-target.js';
import type { OAuthSupport } from '../app/oauth-support.js';
import type { ServerConfig } from '../config/config-schema.js';
import { GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import type { SandboxSummary } from '../foundation/sandbox/sandbox-profile.js';
import { untilAborted } from '../foundation/util/until-aborted.js';
import { listAllTools } from '../sources/mcp/list-all-tools.js';
import type { TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import type { Connection } from '../sources/mcp/open-connection.js';
import { npxLaunchOf, type PackageCache } from '../sources/mcp/package-cache.js';
import { planSummary, type SandboxContext, serverSandboxPlan } from '../sources/sandbox/server-sandbox.js';
import { CapturingLog } from './capturing-log.js';
import type { ConnectionTracker } from './connection-tracker.js';
import { sandboxNote } from './doctor-sandbox-note.js';

/** What `doctor` found out about one server (also its `--json` shape). */
export interface ServerCheck {
  name: string;
  namespace: string;
  kind: 'stdio' | 'remote';
  /** What the connection used; for a server not connected, what the config asks for (`auto` too). */
  transport: string;
  /** `installing`: an `npx` package was still being installed at the deadline (the install goes on). */
  state: 'ok' | 'failed' | 'skipped' | 'installing';
  /** The protocol revision the server speaks (`2026-07-28`, or the 2025 one negotiated); null: not connected. */
  protocolVersion: string | null;
  /** Spawn or reach + initialize; for a failure in that step, the time until it failed. */
  connectMs: number | null;
  /** Every page of tools/list; for a failure in that step, the time until it failed. */
  listMs: number | null;
  tools: number | null;
  server: { name: string; version: string } | null;
  failedStep: 'connect' | 'list' | null;
  error: { code: string; message: string } | null;
  /** What is worth knowing about a server that answered (it wrote non-JSON to stdout…). */
  notes: string[];
  /** An OAuth server's token sets (present, expiry, last refresh error; never a token). */
  oauth?: TokenStatus[];
  /** A stdio server: whether and how it is sandboxed (engine, network, writable paths). */
  sandbox?: SandboxSummary;
}

/** What `checkServer` needs besides the server (an options bag: `oauth` may be given as undefined). */
export interface CheckContext {
  baseDir: string;
  timeoutMs: number;
  clientInfo: { name: string; version: string };
  tracker: ConnectionTracker;
  /** The stored OAuth tokens, when any server uses OAuth. */
  oauth?: OAuthSupport | undefined;
  /** The gateway's package cache: `npx -y pkg` servers are checked as the gateway starts them. */
  packages?: PackageCache | undefined;
  /** The gateway's sandbox settings: stdio servers are checked sandboxed as the gateway starts them. */
  sandbox?: SandboxContext | undefined;
}

/** Connects to one server, lists its tools and closes; never throws (failures are in the result). */
export async function checkServer(
  name: string,
  entry: ServerConfig,
  context: CheckContext,
): Promise<ServerCheck> {
  const check: ServerCheck = {
    name,
    namespace: entry.namespace,
    kind: entry.kind,
    transport: entry.kind === 'stdio' ? 'stdio' : entry.transport,
    protocolVersion: null,
    state: 'skipped',
    connectMs: null,
    listMs: null,
    tools: null,
    server: null,
    failedStep: null,
    error: null,
    notes: [],
  };
  if (!entry.enabled) return check;

  const { timeoutMs } = context;
  const endsAt = Date.now() + timeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new GatewayError('timeout', `no answer within ${timeoutMs} ms (--timeout)`)),
    timeoutMs,
  );
  const log = new CapturingLog();
  let step: 'connect' | 'list' = 'connect';
  let stepStarted = performance.now();
  let connection: Connection | undefined;
  const given = downstreamTarget(
    entry,
    context.baseDir,
    context.oauth ? { name, support: context.oauth } : undefined,
  );
  const plan =
    entry.kind === 'stdio' && context.sandbox
      ? serverSandboxPlan(name, entry.sandbox, entry.args, context.sandbox, entry.env)
      : undefined;
  // Its note comes last (after what the server did), where the table may cut it short.
  if (plan !== undefined) check.sandbox = planSummary(plan);
  const target =
    given.kind === 'stdio'
      ? {
          ...given,
          ...(context.packages ? { packages: context.packages } : {}),
          ...(plan ? { sandbox: plan } : {}),
        }
      : given;
  const npx =
    target.kind === 'stdio' && context.packages ? npxLaunchOf(target.command, target.args) : undefined;
  if (context.oauth && entry.kind === 'remote' && entry.oauth) {
    check.oauth = context.oauth.store.statuses(name);
    for (const set of check.oauth) check.notes.push(tokenNote(set));
  }
  // The MCP client is loaded by the command that connects, not by every command of the CLI.
  const [{ openConnection }, { SHARED_CAPABILITIES }] = await Promise.all([
    import('../sources/mcp/open-connection.js'),
    import('../sources/mcp/downstream-server.js'),
  ]);
  const opening = openConnection(target, {
    clientInfo: context.clientInfo,
    // Same declaration as the gateway's shared connection: some servers list tools according to it.
    capabilities: SHARED_CAPABILITIES,
    log,
    timeoutMs,
    // Only an `npx` server's wait for its install stops at the deadline (the install goes on).
    ...(npx === undefined ? {} : { signal: deadline.signal }),
    onExit: (exit) => log.exited(exit),
  });
  context.tracker.watch(opening);
  try {
    connection = await untilAborted(opening, deadline.signal);
    check.connectMs = elapsed(stepStarted);
    check.transport = connection.transport;
    check.protocolVersion = connection.protocolVersion ?? null;
    const info = connection.client.getServerVersion();
    if (info) check.server = { name: info.name, version: info.version };

    step = 'list';
    stepStarted = performance.now();
    // The gateway's own listing: every page, and the same error when a server never stops paging.
    const tools = await listAllTools(connection.client, {
      server: name,
      signal: deadline.signal,
      timeoutMs: () => Math.max(1, endsAt - Date.now()),
    });
    check.tools = tools.length;
    check.listMs = elapsed(stepStarted);
    check.state = 'ok';
    const note = log.stdoutNote();
    if (note !== undefined) check.notes.push(note);
    if (check.sandbox !== undefined) check.notes.push(sandboxNote(check.sandbox));
  } catch (error) {
    const failure = toGatewayError(deadline.signal.aborted ? deadline.signal.reason : error);
    check.state =
      npx !== undefined && deadline.signal.aborted && context.packages?.isInstalling(npx.spec)
        ? 'installing'
        : 'failed';
    check.failedStep = step;
    if (step === 'connect') check.connectMs = elapsed(stepStarted);
    else check.listMs = elapsed(stepStarted);
    let message = log.explain(oneLine(failure.message));
    // spawn reports a missing working directory as the command not found (ENOENT).
    if (target.kind === 'stdio' && target.cwd !== undefined && !existsSync(target.cwd)) {
      message += ` (cwd ${target.cwd} does not exist)`;
    }
    if (check.state === 'installing' && npx !== undefined) {
      message = `still installing ${npx.spec} into the package cache (it goes on in the background): ${message}`;
    }
    check.error = { code: failure.code, message };
  } finally {
    clearTimeout(timer);
    if (connection) await context.tracker.close(connection);
    else context.tracker.closeWhenOpen(opening);
  }
  return check;
}

/** One token set as a doctor note: `oauth: tokens present, expires …` (never the token). */
function tokenNote(set: TokenStatus): string {
  const who = set.identity === '' ? '' : ` (user ${set.identity})`;
  const parts = [set.tokens ? 'tokens present' : 'no tokens'];
  if (set.expiresAt) parts.push(`expires ${set.expiresAt}`);
  if (set.lastRefreshError) parts.push(`last refresh error: ${set.lastRefreshError}`);
  return `oauth${who}: ${parts.join(', ')}`;
}

/** Milliseconds since `since` (a `performance.now()`), rounded. */
export function elapsed(since: number): number {
  return Math.round(performance.now() - since);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
