import type { PendingApproval } from './pending-approval.js';

/** An admin's answer to a held call, as it travels to the replica holding the call. */
export interface BoardAnswer {
  id: string;
  decision: 'approve' | 'deny';
  /** The admin who answered (`apikey:NAME`…). */
  by: string;
}

/**
 * Where replicas share their admin queues (`state.driver: redis`): each replica posts the calls
 * it holds, any replica lists them all and sends an answer to the one holding the call. The calls
 * themselves stay where they are (their connections are there); only their descriptions and the
 * answers travel.
 */
export interface ApprovalBoard {
  /** Lists `entry` for every replica until it is removed or expires. */
  post(entry: PendingApproval): Promise<void>;
  /** Takes a settled call off the board. */
  remove(id: string): Promise<void>;
  /** The held calls of every replica, oldest first; expired ones (a replica gone) left out. */
  list(): Promise<PendingApproval[]>;
  /** Sends an answer to the replica holding `id`: the entry answered, or undefined when no replica holds it. */
  send(answer: BoardAnswer): Promise<PendingApproval | undefined>;
  /** Calls `onAnswer` with every answer sent to any replica (the desk keeps those for its own calls). */
  listen(onAnswer: (answer: BoardAnswer) => void): Promise<void>;
  close(): Promise<void>;
}
