import type { GatewayErrorCode } from '../model/error-codes.js';

/**
 * A port through which a lower layer reports a timed operation — a search, a call to a downstream
 * server — without knowing who listens. Implementations (spans, metrics) live in operations/ and
 * are injected by app/, so discovery/ and sources/ never import OpenTelemetry or prom-client.
 *
 * `start` is called when the operation begins; the function it returns is called exactly once,
 * when it ends. Implementations must not throw: an observer never changes an operation's outcome.
 */
export interface OperationObserver<Start, End> {
  start(info: Start): (end: End) => void;
}

/** A search as it begins (`ToolSearch.search`). The query text itself is never reported. */
export interface SearchStart {
  /** Characters in the query; 0 for a listing. */
  queryLength: number;
  limit: number;
  offset: number;
  /** The index's ranking strategy (`bm25`, `lexical`, …). */
  strategy: string;
}

/** A search as it ends. */
export interface SearchEnd {
  /** Tools on the page returned. */
  results: number;
  /** Set when the search failed. */
  errorCode?: GatewayErrorCode;
}

export type SearchObserver = OperationObserver<SearchStart, SearchEnd>;

/** A `tools/call` to a downstream MCP server as it begins. */
export interface DownstreamCallStart {
  /** The server's key in `servers`. */
  server: string;
  /** The tool's name on that server (before overrides renamed it). */
  tool: string;
  /** The pipeline call this request serves (`ExecutionContext.callId`), to nest it under that call. */
  callId: string;
}

/** A downstream call as it ends. */
export interface DownstreamCallEnd {
  /** Set when the call failed, or the server answered with an error result. */
  errorCode?: GatewayErrorCode;
}

export type DownstreamCallObserver = OperationObserver<DownstreamCallStart, DownstreamCallEnd>;
