import { GatewayError } from '../../foundation/model/gateway-error.js';
import { HostCalls } from './host-calls.js';
import type { RunnerChannel, RunnerChannelFactory, RunnerExit } from './runner-channel.js';
import { isRunnerToHost, type RunnerToHost, type RunResult } from './runner-protocol.js';
import type { Sandbox, SandboxOutcome, SandboxRequest } from './sandbox.js';
import { assertSandboxLimits } from './sandbox-limits.js';

/** Options of `RunnerPool`. */
export interface RunnerPoolOptions {
  /** `Sandbox.kind`. */
  kind: string;
  /** Runners kept at most (each runs one program at a time). */
  size: number;
  /** Runs waiting for a runner at most; past it `run` fails with `rate_limited`. */
  maxQueue: number;
  /** Runs one runner serves before it is replaced (1: a fresh runner per run). */
  maxRunsPerRunner: number;
  /** Time a runner gets past the deadline to report its own timeout before it is killed. */
  graceMs: number;
  createChannel: RunnerChannelFactory;
}

interface Slot {
  channel: RunnerChannel | undefined;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  runs: number;
  job: Job | undefined;
}

interface Job {
  runId: number;
  request: SandboxRequest;
  startedAt: number;
  deadline: number;
  resolve: (outcome: SandboxOutcome) => void;
  reject: (error: GatewayError) => void;
  settled: boolean;
  slot: Slot | undefined;
  calls: HostCalls | undefined;
  timer: NodeJS.Timeout | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A `Sandbox` over a pool of runners reached through `RunnerChannel`s. It owns everything that
 * must not depend on the runner behaving: the queue and its bound, the deadline (a runner that
 * does not report its own timeout within `graceMs` is killed and replaced), cancellation (kill
 * and replace), the bridge with its own tool-call count, and turning results into GatewayErrors.
 *
 * Queue overflow is `rate_limited` (retryable, 429): the gateway is busy, not broken, and the
 * caller should back off; `backend_unavailable` is kept for a closed sandbox or runners that
 * cannot start.
 */
export class RunnerPool implements Sandbox {
  readonly kind: string;
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private lastRunId = 0;
  private closed = false;

  constructor(private readonly options: RunnerPoolOptions) {
    this.kind = options.kind;
  }

  run(request: SandboxRequest): Promise<SandboxOutcome> {
    try {
      if (this.closed) throw new GatewayError('backend_unavailable', `the ${this.kind} sandbox is closed`);
      if (typeof request.code !== 'string')
        throw new GatewayError('invalid_request', 'code must be a string');
      assertSandboxLimits(request.limits);
      if (request.signal?.aborted) throw new GatewayError('cancelled', 'the run was cancelled');
      if (this.queue.length >= this.options.maxQueue) {
        throw new GatewayError(
          'rate_limited',
          `the ${this.kind} sandbox is busy (${this.queue.length} runs waiting)`,
          {
            details: { limit: 'max_queue' },
          },
        );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<SandboxOutcome>((resolve, reject) => {
      const startedAt = Date.now();
      const job: Job = {
        runId: ++this.lastRunId,
        request,
        startedAt,
        deadline: startedAt + request.limits.timeoutMs,
        resolve,
        reject,
        settled: false,
        slot: undefined,
        calls: undefined,
        timer: undefined,
        onAbort: undefined,
      };
      job.timer = setTimeout(() => this.onDeadline(job), request.limits.timeoutMs);
      if (request.signal) {
        job.onAbort = () => this.abandon(job, new GatewayError('cancelled', 'the run was cancelled'));
        request.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const error = new GatewayError('backend_unavailable', `the ${this.kind} sandbox was closed`);
    for (const job of this.queue.splice(0)) this.settle(job, error);
    const stopping: Array<Promise<void>> = [];
    for (const slot of [...this.slots]) {
      if (slot.job) this.settle(slot.job, error);
      stopping.push(this.retire(slot));
    }
    await Promise.all(stopping);
  }

  /** Matches waiting runs with idle runners, starting runners (up to `size`) when some wait. */
  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.state !== 'idle') continue;
      const job = this.queue.shift() as Job;
      this.dispatch(slot, job);
    }
    const starting = [...this.slots].filter((slot) => slot.state === 'starting').length;
    if (this.queue.length <= starting) return;
    // Demand fills the whole pool, not one runner per waiting run: the spares then start while
    // this run executes, which is what hides start-up for runners used once (maxRunsPerRunner 1).
    while (this.slots.size < this.options.size) {
      if (!this.spawn()) return;
    }
  }

  private spawn(): Slot | undefined {
    const slot: Slot = { channel: undefined, state: 'starting', runs: 0, job: undefined };
    try {
      slot.channel = this.options.createChannel({
        message: (message) => this.onMessage(slot, message),
        exit: (exit) => this.onExit(slot, exit),
      });
    } catch (error) {
      const head = this.queue.shift();
      const message = error instanceof Error ? error.message : String(error);
      if (head)
        this.settle(
          head,
          new GatewayError('backend_unavailable', `cannot start a sandbox runner: ${message}`),
        );
      return undefined;
    }
    this.slots.add(slot);
    return slot;
  }

  private dispatch(slot: Slot, job: Job): void {
    slot.state = 'busy';
    slot.job = job;
    job.slot = slot;
    job.calls = new HostCalls(
      job.request,
      (reply) => slot.channel?.send(reply),
      (error) => this.abandon(job, error),
    );
    slot.channel?.setBusy(true);
    const { code, toolIds, limits } = job.request;
    slot.channel?.send({
      type: 'run',
      runId: job.runId,
      code,
      toolIds: [...toolIds],
      limits,
      deadline: job.deadline,
    });
  }

  private onMessage(slot: Slot, message: unknown): void {
    if (slot.state === 'dead') return;
    if (!isRunnerToHost(message)) {
      if (slot.job)
        this.settle(slot.job, new GatewayError('internal', 'the sandbox runner sent a malformed message'));
      void this.retire(slot, true);
      return;
    }
    this.handle(slot, message);
  }

  private handle(slot: Slot, message: RunnerToHost): void {
    if (message.type === 'ready') {
      if (slot.state === 'starting') slot.state = 'idle';
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || job.runId !== message.runId) return;
    if (message.type === 'call') {
      job.calls?.enqueue(message);
      return;
    }
    slot.job = undefined;
    slot.runs++;
    this.settleWithResult(job, message.result);
    if (message.recycle || slot.runs >= this.options.maxRunsPerRunner) {
      void this.retire(slot, true);
    } else {
      slot.state = 'idle';
      slot.channel?.setBusy(false);
    }
    this.pump();
  }

  private onExit(slot: Slot, exit: RunnerExit): void {
    if (slot.state === 'dead') return;
    const wasStarting = slot.state === 'starting';
    slot.state = 'dead';
    this.slots.delete(slot);
    if (slot.job) {
      const error = exit.outOfMemory
        ? new GatewayError('sandbox_violation', 'the program exhausted the sandbox runner’s memory', {
            details: { limit: 'memory_mb' },
          })
        : new GatewayError('internal', `the sandbox runner stopped unexpectedly: ${exit.message}`);
      this.settle(slot.job, error);
    } else if (wasStarting) {
      // A runner that cannot start fails one waiting run instead of being retried in a hot loop.
      const head = this.queue.shift();
      if (head)
        this.settle(
          head,
          new GatewayError('backend_unavailable', `cannot start a sandbox runner: ${exit.message}`),
        );
    }
    this.pump();
  }

  private onDeadline(job: Job): void {
    if (job.settled) return;
    const timeout = new GatewayError(
      'timeout',
      `the program ran longer than ${job.request.limits.timeoutMs} ms`,
    );
    if (!job.slot) {
      this.settle(job, timeout);
      return;
    }
    // The runner enforces the same deadline and normally answers first, with logs; this is the
    // backstop for a runner stuck in one long native operation.
    job.timer = setTimeout(() => this.abandon(job, timeout), this.options.graceMs);
  }

  /** Ends a run from the host side; a runner still working on it is killed and replaced. */
  private abandon(job: Job, error: GatewayError): void {
    if (job.settled) return;
    const slot = job.slot;
    this.settle(job, error);
    if (slot && slot.job === job) {
      slot.job = undefined;
      void this.retire(slot, true);
    }
    this.pump();
  }

  /** Kills a runner; `replace` starts a successor at once so the pool stays warm. */
  private retire(slot: Slot, replace = false): Promise<void> {
    if (slot.state === 'dead') return Promise.resolve();
    slot.state = 'dead';
    this.slots.delete(slot);
    const stopped = slot.channel?.kill().catch(() => {}) ?? Promise.resolve();
    if (replace && !this.closed && this.slots.size < this.options.size) this.spawn();
    return stopped;
  }

  private settleWithResult(job: Job, result: RunResult): void {
    const logs = Array.isArray(result.logs) ? result.logs : [];
    if (!result.ok) {
      const details = { ...result.error.details };
      if (logs.length > 0) details.logs = logs;
      const hasDetails = Object.keys(details).length > 0;
      this.settle(
        job,
        new GatewayError(result.error.code, result.error.message, hasDetails ? { details } : {}),
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(result.json);
    } catch {
      this.settle(job, new GatewayError('internal', 'the sandbox runner returned malformed JSON'));
      return;
    }
    this.settle(job, { value, logs, durationMs: Date.now() - job.startedAt });
  }

  private settle(job: Job, outcome: SandboxOutcome | GatewayError): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    if (job.onAbort) job.request.signal?.removeEventListener('abort', job.onAbort);
    job.calls?.close();
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    if (outcome instanceof GatewayError) job.reject(outcome);
    else job.resolve(outcome);
  }
}
