import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { RunnerChannel, RunnerEvents } from './runner-channel.js';
import { RunnerPool, type RunnerPoolOptions } from './runner-pool.js';
import type { HostToRunner, ReplyMessage, RunMessage } from './runner-protocol.js';
import type { HostBridge, SandboxLimits, SandboxOutcome } from './sandbox.js';

const LIMITS: SandboxLimits = {
  timeoutMs: 1000,
  memoryMb: 16,
  maxToolCalls: 2,
  maxLogBytes: 100,
  maxResultBytes: 1000,
};

/** What a fake runner does with a message; `runner` lets it answer. */
type Behaviour = (message: HostToRunner, runner: FakeRunner) => void;

/** Answers every run with `{ json: "1" }` at once. */
const answerOne: Behaviour = (message, runner) => {
  if (message.type === 'run') runner.done(message, { ok: true, json: '1', logs: [] });
};

/** A runner in memory: scripted answers, recorded messages, observable kills. */
class FakeRunner implements RunnerChannel {
  readonly received: HostToRunner[] = [];
  killed = false;

  constructor(
    private readonly events: RunnerEvents,
    private readonly behaviour: Behaviour,
    startsOk: boolean,
  ) {
    setImmediate(() =>
      startsOk
        ? events.message({ type: 'ready' })
        : events.exit({ outOfMemory: false, message: 'no engine' }),
    );
  }

  send(message: HostToRunner): void {
    this.received.push(message);
    setImmediate(() => this.behaviour(message, this));
  }

  kill(): Promise<void> {
    if (!this.killed) {
      this.killed = true;
      setImmediate(() => this.events.exit({ outOfMemory: false, message: 'killed' }));
    }
    return Promise.resolve();
  }

  setBusy(): void {}

  emit(message: unknown): void {
    if (!this.killed) this.events.message(message);
  }

  crash(outOfMemory: boolean): void {
    this.events.exit({ outOfMemory, message: 'crashed' });
  }

  done(run: RunMessage, result: unknown, recycle = false): void {
    this.emit({ type: 'done', runId: run.runId, result, recycle });
  }
}

let pools: RunnerPool[] = [];

function pool(behaviour: Behaviour, options: Partial<RunnerPoolOptions> & { startsOk?: boolean } = {}) {
  const runners: FakeRunner[] = [];
  const { startsOk = true, ...rest } = options;
  const created = new RunnerPool({
    kind: 'fake',
    size: 1,
    maxQueue: 10,
    maxRunsPerRunner: 100,
    graceMs: 50,
    createChannel: (events) => {
      const runner = new FakeRunner(events, behaviour, startsOk);
      runners.push(runner);
      return runner;
    },
    ...rest,
  });
  pools.push(created);
  return { sandbox: created, runners };
}

function run(
  sandbox: RunnerPool,
  overrides: { limits?: Partial<SandboxLimits>; bridge?: HostBridge; signal?: AbortSignal } = {},
): Promise<SandboxOutcome> {
  return sandbox.run({
    code: 'return 1',
    toolIds: [],
    bridge: overrides.bridge ?? (async () => null),
    signal: overrides.signal,
    limits: { ...LIMITS, ...overrides.limits },
  });
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

afterEach(async () => {
  await Promise.all(pools.map((created) => created.close()));
  pools = [];
});

describe('RunnerPool', () => {
  it('queues runs beyond its size and serves them in order on the runners it started', async () => {
    const { sandbox, runners } = pool(answerOne, { size: 2 });
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => run(sandbox)));
    expect(outcomes.map((o) => o.value)).toEqual([1, 1, 1, 1, 1]);
    expect(runners).toHaveLength(2);
    const runIds = runners.flatMap((r) => r.received.filter((m) => m.type === 'run').map((m) => m.runId));
    expect(runIds.sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers rate_limited past maxQueue', async () => {
    const { sandbox } = pool(answerOne, { maxQueue: 1 });
    const first = run(sandbox);
    const error = await failure(run(sandbox));
    expect(error.code).toBe('rate_limited');
    expect(error.details).toEqual({ limit: 'max_queue' });
    expect((await first).value).toBe(1);
  });

  it('replaces a runner after maxRunsPerRunner runs', async () => {
    const { sandbox, runners } = pool(answerOne, { maxRunsPerRunner: 1 });
    for (let i = 0; i < 3; i++) await run(sandbox);
    expect(runners.filter((r) => r.killed).length).toBeGreaterThanOrEqual(3);
  });

  it('kills and replaces a runner that does not report its timeout within the grace period', async () => {
    const { sandbox, runners } = pool(() => {});
    const error = await failure(run(sandbox, { limits: { timeoutMs: 30 } }));
    expect(error.code).toBe('timeout');
    expect(runners[0]?.killed).toBe(true);
    expect(runners).toHaveLength(2);
  });

  it('times out a run still waiting in the queue', async () => {
    const { sandbox } = pool(() => {});
    const blocking = run(sandbox, { limits: { timeoutMs: 100 } });
    const error = await failure(run(sandbox, { limits: { timeoutMs: 20 } }));
    expect(error.code).toBe('timeout');
    await failure(blocking);
  });

  it('cancels a running program by killing its runner, and a queued one by dropping it', async () => {
    const { sandbox, runners } = pool(() => {});
    const controller = new AbortController();
    const queuedController = new AbortController();
    const running = run(sandbox, { signal: controller.signal });
    const queued = run(sandbox, { signal: queuedController.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    queuedController.abort();
    expect((await failure(queued)).code).toBe('cancelled');
    expect(runners[0]?.killed).toBe(false);
    controller.abort();
    expect((await failure(running)).code).toBe('cancelled');
    expect(runners[0]?.killed).toBe(true);
  });

  it('turns a failed result into a GatewayError carrying the logs', async () => {
    const logs = [{ level: 'log', message: 'hello' }];
    const { sandbox } = pool((message, runner) => {
      if (message.type !== 'run') return;
      const error = { code: 'execution_failed', message: 'Error: boom', details: { name: 'Error' } };
      runner.done(message, { ok: false, error, logs });
    });
    const error = await failure(run(sandbox));
    expect(error.code).toBe('execution_failed');
    expect(error.details).toEqual({ name: 'Error', logs });
  });

  it('reports a runner that crashes mid-run, as memory when it ran out of heap', async () => {
    const crashing = (outOfMemory: boolean): ReturnType<typeof pool> =>
      pool((message, runner) => {
        if (message.type === 'run') runner.crash(outOfMemory);
      });
    expect((await failure(run(crashing(false).sandbox))).code).toBe('internal');
    const memory = await failure(run(crashing(true).sandbox));
    expect(memory.code).toBe('sandbox_violation');
    expect(memory.details).toEqual({ limit: 'memory_mb' });
  });

  it('fails a run when its runner cannot start, without retrying in a loop', async () => {
    const { sandbox, runners } = pool(answerOne, { startsOk: false });
    expect((await failure(run(sandbox))).code).toBe('backend_unavailable');
    expect(runners).toHaveLength(1);
  });

  it('fails a run when no runner can be created at all', async () => {
    const sandbox = new RunnerPool({
      kind: 'fake',
      size: 1,
      maxQueue: 1,
      maxRunsPerRunner: 1,
      graceMs: 10,
      createChannel: () => {
        throw new Error('missing script');
      },
    });
    const error = await failure(run(sandbox));
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toContain('missing script');
  });

  it('kills a runner that sends a malformed message', async () => {
    const { sandbox, runners } = pool((message, runner) => {
      if (message.type === 'run') runner.emit({ type: 'bogus' });
    });
    expect((await failure(run(sandbox))).code).toBe('internal');
    expect(runners[0]?.killed).toBe(true);
  });

  it('answers host calls through the bridge, errors included', async () => {
    const replies: ReplyMessage[] = [];
    let current: RunMessage | undefined;
    const { sandbox } = pool((message, runner) => {
      if (message.type === 'run') {
        current = message;
        runner.emit({
          type: 'call',
          runId: message.runId,
          callId: 1,
          method: 'tools.call',
          params: '{"id":"a:b"}',
        });
        runner.emit({
          type: 'call',
          runId: message.runId,
          callId: 2,
          method: 'tools.describe',
          params: '{"id":"x:y"}',
        });
        runner.emit({
          type: 'call',
          runId: message.runId,
          callId: 3,
          method: 'tools.search',
          params: '{"query":1}',
        });
      } else if (message.type === 'reply') {
        replies.push(message);
        if (replies.length === 3 && current) runner.done(current, { ok: true, json: '0', logs: [] });
      }
    });
    const bridge: HostBridge = async (method, params) => {
      if (method === 'tools.describe') throw new GatewayError('tool_not_found', 'no x:y');
      return { method, params };
    };
    await run(sandbox, { bridge });
    const byId = Object.fromEntries(replies.map((reply) => [reply.callId, reply]));
    expect(byId[1]).toMatchObject({
      ok: true,
      json: '{"method":"tools.call","params":{"id":"a:b","args":{}}}',
    });
    expect(byId[2]).toMatchObject({ ok: false, error: { code: 'tool_not_found', message: 'no x:y' } });
    expect(byId[3]).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('counts tool calls itself and stops a runner that does not', async () => {
    const bridged: unknown[] = [];
    const { sandbox, runners } = pool((message, runner) => {
      if (message.type !== 'run') return;
      for (let callId = 1; callId <= 3; callId++) {
        runner.emit({
          type: 'call',
          runId: message.runId,
          callId,
          method: 'tools.call',
          params: '{"id":"a:b"}',
        });
      }
    });
    const error = await failure(run(sandbox, { bridge: async (_m, p) => bridged.push(p) }));
    expect(error.code).toBe('sandbox_violation');
    expect(error.details).toEqual({ limit: 'max_tool_calls' });
    expect(bridged.length).toBeLessThanOrEqual(2);
    expect(runners[0]?.killed).toBe(true);
  });

  it('rejects everything once closed', async () => {
    const { sandbox, runners } = pool(() => {});
    const running = run(sandbox);
    const queued = run(sandbox);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await sandbox.close();
    expect((await failure(running)).code).toBe('backend_unavailable');
    expect((await failure(queued)).code).toBe('backend_unavailable');
    expect((await failure(run(sandbox))).code).toBe('backend_unavailable');
    expect(runners.every((r) => r.killed)).toBe(true);
  });
});
