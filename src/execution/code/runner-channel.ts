import type { HostToRunner } from './runner-protocol.js';

/** Why a runner stopped without being asked to. */
export interface RunnerExit {
  /** The runner's own heap overflowed (not the program's: that is caught inside the engine). */
  outOfMemory: boolean;
  message: string;
}

/** What a channel reports. Each callback fires on a later tick, never during `create`. */
export interface RunnerEvents {
  message(value: unknown): void;
  /** Fires once, whether the runner crashed, exited or was killed. */
  exit(exit: RunnerExit): void;
}

/**
 * One runner (a worker thread, a child process, later a container) as the pool sees it: a pipe
 * for protocol messages plus a kill switch. Messages from the runner are unvalidated `unknown`.
 */
export interface RunnerChannel {
  send(message: HostToRunner): void;
  /** Stops the runner at once (terminate/SIGKILL); resolves once it is gone. Safe to repeat. */
  kill(): Promise<void>;
  /** A busy runner keeps the host process alive; an idle one must not hold it open. */
  setBusy(busy: boolean): void;
}

/** Starts one runner. May throw when the runner cannot be started at all. */
export type RunnerChannelFactory = (events: RunnerEvents) => RunnerChannel;
