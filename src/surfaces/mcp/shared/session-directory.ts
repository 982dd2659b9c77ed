import type { AutoListing } from '../exposure.js';

/**
 * What another replica needs to rebuild a 2025-era MCP session it has never seen: the client's
 * `initialize` (protocol version, client info, capabilities — sampling, elicitation and roots decide
 * its per-session downstream links), whom and where the session serves, and the state the client
 * set on it later (log level, resource subscriptions). Plain JSON: it is stored as such.
 */
export interface SessionRecord {
  /** `sessionOwner` of the caller that initialised it: any other caller gets 403. */
  owner: string;
  /** The endpoint it was opened on (`/mcp`, `/mcp/{toolset}`): it is unknown on any other. */
  endpoint: string;
  /** The toolset the endpoint narrows to, if any (the scope is resolved from it again). */
  toolset?: string;
  /** Opened by a client that accepts only `application/json`. */
  json: boolean;
  /** The protocol version the client asked for in `initialize` (negotiation gives the same again). */
  protocolVersion: string;
  clientInfo: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  /** The level of the client's last `logging/setLevel`, if any. */
  logLevel?: string;
  /** The resource URIs the client subscribed to (`resources/subscribe`), as it named them. */
  subscriptions?: string[];
  /**
   * Exposure `auto`: what it decided when the session opened (every tool listed, or the
   * metatools); a replica rebuilding the session lists the same until its catalog changes.
   * Absent (another mode, or a record from before it was kept): the rebuilding replica decides.
   */
  exposure?: AutoListing;
}

/**
 * Where the 2025-era MCP sessions of every replica are known (docs: ARCHITECTURE.md, "Sessions
 * across replicas"). A record lives for the directory's idle TTL after its last `put` or `touch`
 * (sliding): a session nobody uses ends everywhere on its own. In-memory for one process; a shared
 * implementation lets any replica serve any session.
 */
export interface SessionDirectory {
  /** Stores (or replaces) a session's record; its TTL starts again. */
  put(id: string, record: SessionRecord): Promise<void>;
  /** The record, leaving its TTL alone; undefined when unknown, deleted or expired. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** The record with its TTL started again; undefined (and nothing restarted) when it is gone. */
  touch(id: string): Promise<SessionRecord | undefined>;
  /** Forgets a session; true when it was known. */
  delete(id: string): Promise<boolean>;
}
