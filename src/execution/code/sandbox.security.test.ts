import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayErrorCode } from '../../foundation/model/error-codes.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { createChildProcessSandbox } from './child-process-sandbox.js';
import { createQuickJsSandbox } from './quickjs-sandbox.js';
import { recordingBridge, runCode } from './sandbox.contract.js';
import type { HostBridge, Sandbox, SandboxLimits, SandboxOutcome } from './sandbox.js';

/**
 * Hostile programs, run against every implementation. Each must stay contained (the expected
 * error or value), the host's event loop must keep ticking while it runs, the host's own objects
 * must be untouched, and the sandbox must still run a normal program afterwards.
 */
interface SecurityCase {
  name: string;
  code: string;
  limits?: Partial<SandboxLimits>;
  bridge?: () => HostBridge & { calls: unknown[] };
  /** The failure expected; `limit` is checked against details.limit. */
  fails?: { code: GatewayErrorCode | GatewayErrorCode[]; limit?: string; message?: RegExp };
  /** The value expected instead of a failure. */
  value?: unknown;
  check?: (outcome: SandboxOutcome | GatewayError, bridge: { calls: unknown[] }) => void;
}

const HOST_GLOBALS = [
  'process',
  'require',
  'module',
  'Buffer',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebAssembly',
];

const CASES: SecurityCase[] = [
  {
    name: 'an endless loop',
    code: 'while (true) {}',
    limits: { timeoutMs: 400 },
    fails: { code: 'timeout' },
  },
  {
    name: 'an endless loop that catches its interruption',
    code: 'for (;;) { try { for (;;) {} } catch {} }',
    limits: { timeoutMs: 400 },
    fails: { code: 'timeout' },
  },
  {
    name: 'an endless microtask chain',
    code: 'const spin = () => Promise.resolve().then(spin);\nspin();\nawait new Promise(() => {})',
    limits: { timeoutMs: 400 },
    fails: { code: 'timeout' },
  },
  {
    name: 'deep recursion',
    code: 'const f = (n) => f(n + 1) + 1;\nreturn f(0)',
    fails: { code: 'sandbox_violation', limit: 'stack_size' },
  },
  {
    name: 'deep recursion caught again and again',
    code: "function f() { return f() }\nfor (let i = 0; i < 5; i++) { try { f() } catch {} }\nreturn 'survived'",
    value: 'survived',
  },
  {
    // QuickJS's JSON.stringify is quadratic in depth and never polls the interrupt handler: the
    // host's deadline backstop has to kill the runner.
    name: 'a long native operation the interrupt handler cannot reach',
    code: 'let o = {};\nconst root = o;\nfor (let i = 0; i < 1e5; i++) { o.a = {}; o = o.a }\nreturn root',
    limits: { timeoutMs: 600 },
    fails: { code: 'timeout' },
  },
  {
    name: 'a memory bomb of arrays',
    code: 'const a = [];\nfor (;;) a.push(new Array(1e6).fill(1))',
    fails: { code: 'sandbox_violation', limit: 'memory_mb' },
  },
  {
    name: 'a memory bomb of small objects',
    code: 'const a = [];\nfor (;;) a.push({ i: a.length })',
    fails: { code: 'sandbox_violation', limit: 'memory_mb' },
  },
  {
    name: 'a huge string',
    code: "return 'x'.repeat(2 ** 28)",
    fails: { code: 'sandbox_violation', limit: 'memory_mb' },
  },
  {
    name: 'a string doubled forever',
    code: "let s = 'x';\nfor (;;) s += s",
    fails: { code: 'sandbox_violation', limit: 'memory_mb', message: /memory limit \(\d+ MiB\)/ },
  },
  {
    // Regression: QuickJS throws null when growing a Map fails, which was reported as "Uncaught null".
    name: 'a Map grown until memory runs out',
    code: 'const m = new Map();\nfor (let i = 0; ; i++) m.set(i, String(i))',
    limits: { memoryMb: 16 },
    fails: { code: 'sandbox_violation', limit: 'memory_mb', message: /memory limit \(16 MiB\)/ },
  },
  {
    name: 'a program that throws null itself',
    code: 'throw null',
    fails: { code: 'execution_failed', message: /^Uncaught null/ },
  },
  {
    name: 'a huge return value',
    code: "return 'y'.repeat(200_000)",
    limits: { maxResultBytes: 100_000 },
    fails: { code: 'sandbox_violation', limit: 'max_result_bytes' },
  },
  {
    name: 'a huge structured return value',
    code: 'return Array.from({ length: 100_000 }, (_, i) => ({ i }))',
    limits: { maxResultBytes: 100_000 },
    fails: { code: 'sandbox_violation', limit: 'max_result_bytes' },
  },
  {
    name: 'a flood of awaited tool calls',
    code: "for (let i = 0; i < 10_000; i++) await tools.call('ns:echo', { i })",
    limits: { maxToolCalls: 100 },
    fails: { code: 'sandbox_violation', limit: 'max_tool_calls', message: /more than 100 tool calls/ },
    check: (_outcome, bridge) => expect(bridge.calls.length).toBeLessThanOrEqual(100),
  },
  {
    name: 'a flood of tool calls fired without waiting',
    code: "const all = [];\nfor (let i = 0; i < 10_000; i++) all.push(tools.call('ns:echo', { i }).catch(() => {}));\nawait Promise.all(all)",
    limits: { maxToolCalls: 100 },
    fails: { code: 'sandbox_violation', limit: 'max_tool_calls' },
    check: (_outcome, bridge) => expect(bridge.calls.length).toBeLessThanOrEqual(100),
  },
  {
    name: 'a flood of searches',
    code: "for (;;) await tools.search('x')",
    fails: { code: 'sandbox_violation', limit: 'max_host_calls' },
  },
  {
    name: 'a flood of console output',
    code: "for (let i = 0; i < 100_000; i++) console.log('line ' + i);\nconsole.log('x'.repeat(1e6));\nreturn 'ok'",
    limits: { maxLogBytes: 10_000 },
    value: 'ok',
    check: (outcome) => {
      const logs = (outcome as SandboxOutcome).logs;
      const bytes = logs.slice(0, -1).reduce((sum, log) => sum + Buffer.byteLength(log.message) + 1, 0);
      expect(bytes).toBeLessThanOrEqual(10_000);
      expect(logs.at(-1)?.message).toMatch(/truncated/);
    },
  },
  {
    name: 'a flood of timers',
    code: 'for (;;) setTimeout(() => {}, 1e9)',
    fails: { code: 'execution_failed', message: /pending timers/ },
  },
  {
    name: 'this.constructor.constructor to reach process',
    code: "return this.constructor.constructor('return process')()",
    fails: { code: 'execution_failed', message: /process'? is not defined/ },
  },
  {
    name: 'Function to globalThis, probing for host globals',
    code: `const g = Function('return globalThis')();\nreturn ${JSON.stringify(HOST_GLOBALS)}.map((k) => typeof g[k])`,
    value: HOST_GLOBALS.map(() => 'undefined'),
  },
  {
    name: 'a listing of globalThis',
    code: 'return Object.getOwnPropertyNames(globalThis).filter((k) => /process|require|module|^Buffer|host|aperture|fetch|socket|^std$|^os$/i.test(k))',
    value: [],
  },
  {
    name: 'constructors of a host result',
    code: "const r = await tools.call('ns:echo', {});\nreturn r.constructor.constructor('return typeof process')()",
    value: 'undefined',
  },
  {
    name: 'tools.call.constructor and the prototype of tools',
    code: "return [await tools.call.constructor('return typeof process')(), Object.getPrototypeOf(tools) === Object.prototype, typeof Object.getPrototypeOf(tools.call).constructor]",
    value: ['undefined', true, 'function'],
  },
  {
    name: '__proto__ pollution of host results and arguments',
    code:
      "const r = await tools.call('ns:echo', {});\nr.__proto__.polluted = 'yes';\nObject.prototype.polluted2 = 1;\n" +
      'return await tools.call(\'ns:echo\', JSON.parse(\'{"__proto__": {"polluted": true}}\'))',
    check: (outcome) => {
      const value = (outcome as SandboxOutcome).value as { args: object };
      expect(Object.getPrototypeOf(value.args)).toBe(Object.prototype);
    },
  },
  {
    name: "import('fs')",
    code: "const fs = await import('fs');\nreturn typeof fs.readFileSync",
    fails: { code: 'execution_failed' },
  },
  {
    name: "require('fs')",
    code: "return require('fs')",
    fails: { code: 'execution_failed', message: /require/ },
  },
  {
    name: 'tampering with tools to skip the call limit',
    code:
      "try { tools.call = async () => 'fake' } catch {}\ntry { Object.defineProperty(tools, 'call', { value: 1 }) } catch {}\n" +
      "try { globalThis.tools = {} } catch {}\nfor (let i = 0; i < 10; i++) await tools.call('ns:echo', {})",
    limits: { maxToolCalls: 5 },
    fails: { code: 'sandbox_violation', limit: 'max_tool_calls' },
    check: (_outcome, bridge) => expect(bridge.calls.length).toBe(5),
  },
  {
    name: 'replacing JSON.stringify before returning',
    code: "JSON.stringify = () => 'x'.repeat(1e7);\nString.prototype.slice = () => 'y';\nreturn { a: 1 }",
    value: { a: 1 },
  },
  {
    name: 'a tool id the bridge refuses',
    code: "try { await tools.call('nope:missing', {}) } catch (e) { return [e.code, e.message] }",
    value: ['tool_not_found', 'no tool named nope:missing'],
  },
  {
    name: 'Date and Math.random, which may exist',
    code: 'return [typeof Date.now(), typeof Math.random()]',
    value: ['number', 'number'],
  },
  {
    name: 'a host answer larger than the memory limit',
    code: "await tools.call('big:value', {})",
    limits: { memoryMb: 8 },
    bridge: () => Object.assign(async () => 'z'.repeat(12 * 1024 * 1024), { calls: [] }),
    fails: { code: 'execution_failed', message: /payload_too_large/ },
  },
  {
    name: 'a bridge that never answers',
    code: "return await tools.call('ns:echo', {})",
    limits: { timeoutMs: 300 },
    bridge: () => {
      const calls: unknown[] = [];
      const bridge: HostBridge = (_method, params, { signal }) => {
        calls.push(params);
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve(calls.push('aborted'))),
        );
      };
      return Object.assign(bridge, { calls });
    },
    fails: { code: 'timeout' },
    check: (_outcome, bridge) => expect(bridge.calls).toContain('aborted'),
  },
];

/** Runs `action` while counting 10 ms ticks of the host's event loop. */
async function whileTicking<T>(
  action: () => Promise<T>,
): Promise<{ result: T; ticks: number; elapsed: number }> {
  let ticks = 0;
  const interval = setInterval(() => ticks++, 10);
  const started = Date.now();
  try {
    const result = await action();
    return { result, ticks, elapsed: Date.now() - started };
  } finally {
    clearInterval(interval);
  }
}

const IMPLEMENTATIONS: Array<[string, () => Sandbox]> = [
  ['QuickJsSandbox', () => createQuickJsSandbox()],
  // Reused processes keep the suite fast from src/; per-run processes are tested separately.
  ['ChildProcessSandbox', () => createChildProcessSandbox({ maxRunsPerProcess: 1000 })],
];

describe.each(IMPLEMENTATIONS)('%s contains hostile programs', (_name, factory) => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = factory();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it.each(CASES)('$name', async (testCase) => {
    const bridge = testCase.bridge?.() ?? recordingBridge();
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype);
    const { result, ticks, elapsed } = await whileTicking(() =>
      runCode(sandbox, testCase.code, { bridge, limits: { timeoutMs: 3000, ...testCase.limits } }).catch(
        (error: unknown) => error as GatewayError,
      ),
    );

    if (testCase.fails) {
      expect(result, JSON.stringify(result)).toBeInstanceOf(GatewayError);
      const error = result as GatewayError;
      expect([testCase.fails.code].flat()).toContain(error.code);
      if (testCase.fails.limit) expect(error.details?.limit).toBe(testCase.fails.limit);
      if (testCase.fails.message) expect(error.message).toMatch(testCase.fails.message);
    } else {
      expect(result, result instanceof Error ? result.message : '').not.toBeInstanceOf(Error);
      if ('value' in testCase) expect((result as SandboxOutcome).value).toEqual(testCase.value);
    }
    testCase.check?.(result, bridge);

    // The host kept serving while the program ran (loose bound: CI machines are noisy).
    if (elapsed >= 300) expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 10 / 4));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeKeys);
    // And the sandbox still works.
    expect((await runCode(sandbox, 'return 1')).value).toBe(1);
  });
});
