import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { z } from 'zod';
import type { Source } from '../catalog/source.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { DownstreamCallObserver } from '../foundation/ports/operation-observer.js';
import type { DownstreamServer } from './mcp/downstream-server.js';
import type { SandboxContext } from './sandbox/server-sandbox.js';

/*
 * A source kind as one object: what the config says about it, whether the trust gate checks its
 * tools, and how one configured entry becomes a running `Source`. `SOURCE_DRIVERS`
 * (`source-drivers.ts`) lists them all; the config schema, the reload diff, the trust gate's kinds
 * and the remote sources are derived from that list, so a kind is its folder and one list entry.
 */

/** What the gateway offers every source it creates; a kind uses the parts it needs. */
export interface SourceContext {
  /** Folder that relative paths in an entry resolve against (the config file's folder). */
  baseDir: string;
  log: Logger;
  /** How the gateway introduces itself to a downstream (an MCP client's `clientInfo`). */
  clientInfo: { name: string; version: string };
  /** Reconnection backoff bounds of supervised connections (tests shorten them). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long an idle per-session downstream link stays open. */
  sessionLinkIdleMs?: number;
  /** Where the packages of `npx -y pkg` servers are installed and started from; absent: run `npx`. */
  packageCacheDir?: string;
  /** Called with a source's id each time it is (re-)connected: it is back (circuit breakers). */
  onSourceBack?: (sourceId: string) => void;
  /** How stdio servers are sandboxed (`sandbox:`); absent: they run unconfined. */
  sandbox?: SandboxContext;
  /** The OAuth provider of the entry `key` when its config has an `oauth` block. */
  authProvider?: (key: string) => OAuthClientProvider | undefined;
}

/**
 * A source that some parts of the gateway want more from than the `Source` port: the MCP
 * passthrough needs the supervised connection, the console its admin details, spans the calls.
 * A kind implements what it has; callers test for the method, never for the kind.
 */
export interface SourceExtras {
  /** Tells `observer` of every downstream call sent (spans); only before `start`. */
  observe?(observer: DownstreamCallObserver): void;
  /** Admin-only details: since when the connection is up, the last stderr lines. */
  details?(): { connectedAt?: string; stderr?: string[] };
  /** The supervised downstream MCP server, once started (the passthrough relays to it). */
  readonly server?: DownstreamServer | undefined;
}

/** A running source as a driver creates it. */
export type DriverSource = Source & SourceExtras;

/**
 * The config side of a kind whose entries are configured in their own section (`servers`,
 * `openapi`, `agents`). `Value` is the parsed section; `Entry` one entry of it.
 */
export interface SourceSection<Name extends string = string, Value = unknown, Entry = unknown> {
  /** The section's key in the parsed config (and in the reload diff). */
  readonly name: Name;
  /**
   * The config keys the section is read from, with their schemas, in the order they appear in the
   * config's JSON Schema. Usually one, `name`; MCP servers also read `mcpServers` (other clients'
   * spelling), which `join` merges in.
   */
  readonly fields: z.ZodRawShape;
  /**
   * The section's value from its fields once every field parsed (issues go to `ctx`). Absent: the
   * value of the field `name`.
   */
  readonly join?: (fields: Record<string, unknown>, ctx: z.RefinementCtx) => Value;
  /** The section's entries by key (the key a reload diff compares, and a source's key). */
  entries(value: Value): [key: string, entry: Entry][];
  /** Whether the entry runs at all (a disabled server is configured but not started). */
  enabled?(entry: Entry): boolean;
  /** The catalog source id of the entry `key`. */
  sourceId(key: string): string;
  /**
   * Loads what `create` needs (a heavy client library), once, before the first `create`; only
   * called when the section has an enabled entry, so an unused kind costs nothing at start.
   */
  preload?(): Promise<void>;
  /** The entry as a source (nothing connects or loads before its `start`). */
  create(key: string, entry: Entry, context: SourceContext): DriverSource;
}

/** One kind of source. */
export interface SourceDriver<
  Kind extends string = string,
  Section extends SourceSection | undefined = undefined,
> {
  /** The kind: a tool's `origin.kind`, a source's `kind`, `/readyz`'s `kind`. */
  readonly kind: Kind;
  /**
   * Whether the trust gate checks its tools: content a third party can change under the agent
   * (downstream servers, documents, agents), as opposed to code and config the user wrote.
   */
  readonly trustGated: boolean;
  /**
   * Its own config section, for kinds configured entry by entry; absent for the in-process kinds
   * the gateway wires from `tools` (built-ins, the user's modules).
   */
  readonly section: Section;
}
