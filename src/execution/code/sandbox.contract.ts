import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type {
  HostBridge,
  HostMethod,
  Sandbox,
  SandboxLimits,
  SandboxOutcome,
  SandboxRequest,
} from './sandbox.js';

/** The pool options every implementation accepts. */
export interface ContractSandboxOptions {
  poolSize?: number;
  maxQueue?: number;
}

/** Makes a fresh sandbox; the contract closes what it makes. */
export type SandboxFactory = (options?: ContractSandboxOptions) => Sandbox;

/** Limits of contract runs: small, so failures show quickly. */
export const CONTRACT_LIMITS: SandboxLimits = {
  timeoutMs: 5000,
  memoryMb: 32,
  maxToolCalls: 10,
  maxLogBytes: 4096,
  maxResultBytes: 65_536,
};

/** The tool ids contract programs see as typed proxies. */
export const CONTRACT_TOOL_IDS = ['ns:echo', 'ns:fail', 'my-ns:get.item'];

/** A bridge that records calls: echoes `tools.call`, fails `ns:fail` and unknown namespaces. */
export function recordingBridge(): HostBridge & { calls: Array<[HostMethod, unknown]> } {
  const calls: Array<[HostMethod, unknown]> = [];
  const bridge = async (method: HostMethod, params: unknown): Promise<unknown> => {
    calls.push([method, params]);
    const p = params as { id?: string; args?: unknown; query?: string };
    if (method === 'tools.search') return { tools: [{ id: 'ns:echo' }], query: p.query };
    if (method === 'tools.describe') return { id: p.id, description: 'Echoes its arguments.' };
    if (p.id === 'ns:fail') throw new GatewayError('validation_input', 'bad input for ns:fail');
    if (!CONTRACT_TOOL_IDS.includes(p.id ?? ''))
      throw new GatewayError('tool_not_found', `no tool named ${p.id}`);
    return { tool: p.id, args: p.args };
  };
  return Object.assign(bridge, { calls });
}

/** Runs `code` with contract defaults; `overrides` replace request fields. */
export function runCode(
  sandbox: Sandbox,
  code: string,
  overrides: Partial<Omit<SandboxRequest, 'limits'>> & { limits?: Partial<SandboxLimits> } = {},
): Promise<SandboxOutcome> {
  const { limits, ...rest } = overrides;
  return sandbox.run({
    code,
    bridge: recordingBridge(),
    toolIds: CONTRACT_TOOL_IDS,
    ...rest,
    limits: { ...CONTRACT_LIMITS, ...limits },
  });
}

/** The GatewayError a run rejected with (fails the test when it resolved). */
export async function failureOf(run: Promise<SandboxOutcome>): Promise<GatewayError> {
  const settled = await run.then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in settled))
    throw new Error(`expected a failure, got ${JSON.stringify(settled.outcome.value)}`);
  expect(settled.error).toBeInstanceOf(GatewayError);
  return settled.error as GatewayError;
}

const VALUE_CASES: Array<{ name: string; code: string; expected: unknown }> = [
  { name: 'a number', code: 'return 42', expected: 42 },
  { name: 'a string', code: "return 'text'", expected: 'text' },
  { name: 'a boolean', code: 'return true', expected: true },
  { name: 'null', code: 'return null', expected: null },
  { name: 'an object', code: "return { a: 1, b: { c: 'd' } }", expected: { a: 1, b: { c: 'd' } } },
  { name: 'an array', code: "return [1, 'two', null, [3]]", expected: [1, 'two', null, [3]] },
  { name: 'undefined as null', code: 'return undefined', expected: null },
  { name: 'no return as null', code: 'const x = 1;', expected: null },
  { name: 'a top-level await', code: 'const v = await Promise.resolve(20);\nreturn v + 1', expected: 21 },
  {
    name: 'a value after a timer',
    code: "await new Promise((r) => setTimeout(r, 20));\nreturn 'later'",
    expected: 'later',
  },
  { name: 'a Date as its JSON', code: 'return new Date(0)', expected: '1970-01-01T00:00:00.000Z' },
  { name: 'functions dropped like JSON does', code: 'return { f() {}, n: 1 }', expected: { n: 1 } },
];

const BRIDGE_CASES: Array<{
  name: string;
  code: string;
  expected: unknown;
  calls: Array<[HostMethod, unknown]>;
}> = [
  {
    name: 'tools.call with arguments',
    code: "return await tools.call('ns:echo', { text: 'hi' })",
    expected: { tool: 'ns:echo', args: { text: 'hi' } },
    calls: [['tools.call', { id: 'ns:echo', args: { text: 'hi' } }]],
  },
  {
    name: 'tools.call without arguments sends {}',
    code: "return await tools.call('ns:echo')",
    expected: { tool: 'ns:echo', args: {} },
    calls: [['tools.call', { id: 'ns:echo', args: {} }]],
  },
  {
    name: 'a typed proxy',
    code: 'return await tools.ns.echo({ n: 1 })',
    expected: { tool: 'ns:echo', args: { n: 1 } },
    calls: [['tools.call', { id: 'ns:echo', args: { n: 1 } }]],
  },
  {
    name: 'a proxy whose names are not identifiers, with brackets',
    code: "return await tools['my-ns']['get.item']({ n: 2 })",
    expected: { tool: 'my-ns:get.item', args: { n: 2 } },
    calls: [['tools.call', { id: 'my-ns:get.item', args: { n: 2 } }]],
  },
  {
    name: 'tools.search with options',
    code: "return await tools.search('weather', { limit: 3 })",
    expected: { tools: [{ id: 'ns:echo' }], query: 'weather' },
    calls: [['tools.search', { query: 'weather', options: { limit: 3 } }]],
  },
  {
    name: 'tools.describe',
    code: "return await tools.describe('ns:echo')",
    expected: { id: 'ns:echo', description: 'Echoes its arguments.' },
    calls: [['tools.describe', { id: 'ns:echo' }]],
  },
  {
    name: 'parallel calls',
    code: 'const all = await Promise.all([1, 2].map((n) => tools.ns.echo({ n })));\nreturn all.map((r) => r.args.n)',
    expected: [1, 2],
    calls: [
      ['tools.call', { id: 'ns:echo', args: { n: 1 } }],
      ['tools.call', { id: 'ns:echo', args: { n: 2 } }],
    ],
  },
];

/**
 * The behaviour every {@link Sandbox} must have. Call it from a `*.test.ts` file with a factory
 * returning a fresh sandbox.
 */
export function runSandboxContract(name: string, factory: SandboxFactory): void {
  describe(`Sandbox contract: ${name}`, () => {
    let sandbox: Sandbox;
    beforeAll(() => {
      sandbox = factory();
    });
    afterAll(async () => {
      await sandbox.close();
    });

    it.each(VALUE_CASES)('returns $name', async ({ code, expected }) => {
      const outcome = await runCode(sandbox, code);
      expect(outcome.value).toEqual(expected);
      expect(outcome.logs).toEqual([]);
      expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    });

    it.each(BRIDGE_CASES)('reaches the bridge: $name', async ({ code, expected, calls }) => {
      const bridge = recordingBridge();
      const outcome = await runCode(sandbox, code, { bridge });
      expect(outcome.value).toEqual(expected);
      expect(bridge.calls).toEqual(calls);
    });

    it('lists the tools of a namespace and refuses changes to the proxies', async () => {
      const code =
        "try { tools.ns.echo = () => 'fake' } catch {}\n" +
        "return [Object.keys(tools), Object.keys(tools.ns), typeof tools.ns.nope, 'echo' in tools.ns, await tools.ns.echo({})]";
      const outcome = await runCode(sandbox, code);
      expect(outcome.value).toEqual([
        ['call', 'search', 'describe', 'ns', 'my-ns'],
        ['echo', 'fail'],
        'undefined',
        true,
        { tool: 'ns:echo', args: {} },
      ]);
    });

    it('lets the program catch a host rejection and read its code', async () => {
      const code =
        "try { await tools.call('ns:fail', {}) } catch (e) {\n" +
        '  return { code: e.code, message: e.message, isError: e instanceof Error }\n}';
      const outcome = await runCode(sandbox, code);
      expect(outcome.value).toEqual({
        code: 'validation_input',
        message: 'bad input for ns:fail',
        isError: true,
      });
    });

    it('ends the run as execution_failed naming the code when a host rejection is not caught', async () => {
      const error = await failureOf(runCode(sandbox, "await tools.call('nope:missing', {})"));
      expect(error.code).toBe('execution_failed');
      expect(error.message).toContain('tool_not_found');
      expect(error.message).toContain('no tool named nope:missing');
      expect(error.details).toMatchObject({ code: 'tool_not_found' });
    });

    it('captures console output with levels', async () => {
      const code =
        "console.log('a', 1, { b: 2 });\nconsole.info('i');\nconsole.warn('w');\nconsole.error('e');\nreturn 'done'";
      const outcome = await runCode(sandbox, code);
      expect(outcome.value).toBe('done');
      expect(outcome.logs).toEqual([
        { level: 'log', message: 'a 1 {"b":2}' },
        { level: 'info', message: 'i' },
        { level: 'warn', message: 'w' },
        { level: 'error', message: 'e' },
      ]);
    });

    it('keeps the logs of a failed run in details.logs', async () => {
      const error = await failureOf(runCode(sandbox, "console.log('before');\nthrow new Error('after')"));
      expect(error.details?.logs).toEqual([{ level: 'log', message: 'before' }]);
    });

    it.each([
      { code: 'const a = 1;\nconst b = ;', line: 2, column: 11 },
      { code: 'return )', line: 1, column: 8 },
      { code: 'const ok = 1;\nif (ok) {\n  return 2;', line: 3, column: 12 },
    ])('reports a syntax error at line $line, column $column', async ({ code, line, column }) => {
      const error = await failureOf(runCode(sandbox, code));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('SyntaxError');
      expect(error.details).toEqual({ line, column });
    });

    it('reports a thrown error as execution_failed with its message and line', async () => {
      const error = await failureOf(runCode(sandbox, "const a = 1;\nthrow new Error('boom')"));
      expect(error.code).toBe('execution_failed');
      expect(error.message).toBe('Error: boom');
      expect(error.details).toMatchObject({ name: 'Error', line: 2 });
    });

    it('reports a thrown non-Error value', async () => {
      const error = await failureOf(runCode(sandbox, "throw 'plain'"));
      expect(error.code).toBe('execution_failed');
      expect(error.message).toContain('plain');
    });

    it('rejects a result that is not JSON-serialisable', async () => {
      const error = await failureOf(runCode(sandbox, 'return 10n'));
      expect(error.code).toBe('sandbox_violation');
      expect(error.details).toEqual({ limit: 'json' });
    });

    it('stops at maxToolCalls with a clear message', async () => {
      const bridge = recordingBridge();
      const code = "for (let i = 0; i < 5; i++) await tools.ns.echo({ i });\nreturn 'unreachable'";
      const error = await failureOf(runCode(sandbox, code, { bridge, limits: { maxToolCalls: 3 } }));
      expect(error.code).toBe('sandbox_violation');
      expect(error.details).toEqual({ limit: 'max_tool_calls' });
      expect(error.message).toBe('the program made more than 3 tool calls');
      expect(bridge.calls).toHaveLength(3);
    });

    it('times out a program waiting longer than timeoutMs', async () => {
      const code = 'await new Promise((r) => setTimeout(r, 10_000))';
      const error = await failureOf(runCode(sandbox, code, { limits: { timeoutMs: 200 } }));
      expect(error.code).toBe('timeout');
    });

    it('cancels through the signal', async () => {
      const controller = new AbortController();
      const run = runCode(sandbox, 'await new Promise((r) => setTimeout(r, 10_000))', {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 100);
      expect((await failureOf(run)).code).toBe('cancelled');
      const early = await failureOf(runCode(sandbox, 'return 1', { signal: AbortSignal.abort() }));
      expect(early.code).toBe('cancelled');
    });

    it('gives every run fresh globals', async () => {
      await runCode(sandbox, 'globalThis.leak = 1; Array.prototype.leak = 2; return 1');
      const outcome = await runCode(sandbox, 'return [typeof leak, typeof [].leak]');
      expect(outcome.value).toEqual(['undefined', 'undefined']);
    });

    it('runs several programs at once', async () => {
      const outcomes = await Promise.all([1, 2, 3, 4].map((n) => runCode(sandbox, `return ${n} * 2`)));
      expect(outcomes.map((o) => o.value)).toEqual([2, 4, 6, 8]);
    });

    it('rejects bad limits as invalid_request', async () => {
      const error = await failureOf(runCode(sandbox, 'return 1', { limits: { timeoutMs: -1 } }));
      expect(error.code).toBe('invalid_request');
    });

    it('answers rate_limited when the queue is full', async () => {
      const busy = factory({ poolSize: 1, maxQueue: 0 });
      try {
        expect((await failureOf(runCode(busy, 'return 1'))).code).toBe('rate_limited');
      } finally {
        await busy.close();
      }
    });

    it('answers backend_unavailable once closed', async () => {
      const closed = factory();
      await closed.close();
      expect((await failureOf(runCode(closed, 'return 1'))).code).toBe('backend_unavailable');
    });
  });
}
