import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/** Receives the messages other replicas relay to this one, for one of its sessions. */
export type RelayHandler = (sessionId: string, message: JSONRPCMessage) => void;

/**
 * Messages between the replicas serving one MCP session. A server-to-client request (a downstream
 * server's elicitation or sampling, relayed) is asked by the replica running the call, but the
 * client's answer may land on any replica; that one hands it to the asking replica through the
 * relay. Delivery is best effort, like the HTTP request that carried it: a message for a replica
 * that is gone is dropped.
 */
export interface SessionRelay {
  /** This replica's name, unique among the replicas sharing the relay. */
  readonly replica: string;
  /** Starts receiving messages addressed to this replica; resolves once they can arrive. */
  listen(handler: RelayHandler): Promise<void>;
  /** Hands `message` of session `sessionId` to replica `to`. */
  send(to: string, sessionId: string, message: JSONRPCMessage): Promise<void>;
  /** Stops receiving (the shared client, if any, stays open). */
  close(): Promise<void>;
}
