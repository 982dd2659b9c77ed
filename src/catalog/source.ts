import type { SandboxSummary } from '../foundation/sandbox/sandbox-profile.js';
import type { CatalogEntry } from './catalog-entry.js';

/**
 * Where a source's tools come from: one of the kinds of `SOURCE_DRIVERS` (`sources/source-drivers.ts`),
 * opaque here — the catalog stores and reports it, it never branches on it.
 */
export type SourceKind = string;

/** Where a source stands: what `/readyz`, `doctor` and the metrics report of it. */
export interface SourceState {
  state: 'connecting' | 'connected' | 'failed';
  /** The tools it has in the catalog. */
  tools: number;
  /** MCP servers: the transport in use (`stdio`, `streamable-http`, `sse`). */
  transport?: string;
  /** MCP servers: the protocol revision they speak (`2026-07-28`, or a 2025 one). */
  protocolVersion?: string;
  lastError?: { code: string; message: string };
  /** MCP servers started through `npx`: the package being installed before the first start. */
  installing?: string;
  /** Stdio servers: whether and how the process is sandboxed (engine, network, writable paths). */
  sandbox?: SandboxSummary;
  /** MCP servers: their last state changes, oldest first (at: ISO 8601; reason: why it failed). */
  transitions?: { state: string; at: string; reason?: string }[];
}

/**
 * Hands a source's tools to the catalog, replacing everything it published before. Returns the
 * ids refused because another source registered them first.
 */
export type PublishEntries = (entries: readonly CatalogEntry[]) => readonly string[];

/**
 * The port every place tools come from implements — local modules and built-ins, downstream MCP
 * servers, OpenAPI services, A2A agents — so the composition root wires each one the same way
 * (`attachSource`): start it, let it publish, ask where it stands, stop it.
 */
export interface Source {
  /** The catalog source id (`module:<file>`, `mcp:<server>`, `openapi:<ns>`, `a2a:<agent>`). */
  readonly id: string;
  readonly kind: SourceKind;
  /**
   * Starts the source: its tools are published through `publish`, now and again whenever they
   * change. Settles once the first try has ended, whatever its outcome; never rejects (a failure
   * shows in `state()`).
   */
  start(publish: PublishEntries): Promise<void>;
  state(): SourceState;
  /** Stops the source (connections, processes); what it published stays in the catalog. */
  stop(): Promise<void>;
}
