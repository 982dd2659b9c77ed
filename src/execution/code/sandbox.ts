/**
 * The code-mode sandbox port. An agent sends JavaScript that is the body of an async function;
 * a `Sandbox` runs it in containment and answers its `tools.*` calls through a `HostBridge`.
 *
 * Implementations in this folder:
 * - `createQuickJsSandbox` (default): QuickJS compiled to WebAssembly, in a pool of worker threads.
 * - `createChildProcessSandbox`: the same engine inside separate Node processes.
 *
 * Both run through `sandbox.contract.ts` and `sandbox.security.test.ts`.
 *
 * Adding a container runtime (Docker, gVisor, Firecracker…) later: implement `Sandbox` with a
 * `kind` such as `'container'`, start a container that runs `child-runner-entry` (or any program
 * speaking the JSON messages of `runner-protocol.ts` over stdio or a socket), and reuse
 * `RunnerPool` by giving it a `RunnerChannel` factory for that transport. The pool already owns
 * queueing, deadlines, cancellation, the tool-call budget and the bridge; a new runtime only has
 * to carry messages and kill what it started. Then add the factory to the implementation table in
 * `sandbox.contract.test.ts` and `sandbox.security.test.ts` so it meets the same contract.
 */

/** Resource limits of one run. All are required: the caller (execute_code) owns the defaults. */
export interface SandboxLimits {
  /** Wall-clock budget of the whole run in ms, counted from `run()`: queueing, execution, host calls. */
  timeoutMs: number;
  /** Memory the program may allocate, in MiB, on top of the engine's own baseline. */
  memoryMb: number;
  /** How many `tools.call` requests the program may make (search/describe are not counted). */
  maxToolCalls: number;
  /** Budget for console output: UTF-8 bytes of all messages plus one per entry. */
  maxLogBytes: number;
  /** Largest JSON text of the result (and of one host-call argument) in UTF-8 bytes. */
  maxResultBytes: number;
}

/** What a program can ask of the host. */
export type HostMethod = 'tools.call' | 'tools.search' | 'tools.describe';

/** Parameters of `tools.call(id, args)`; `args` defaults to `{}`. */
export interface ToolCallParams {
  id: string;
  args: unknown;
}

/** Parameters of `tools.search(query, options?)`; `options` defaults to `{}`. */
export interface ToolSearchParams {
  query: string;
  options: Record<string, unknown>;
}

/** Parameters of `tools.describe(id)`. */
export interface ToolDescribeParams {
  id: string;
}

/** The parameter shape of each host method, validated by the sandbox before the bridge sees it. */
export interface HostMethodParams {
  'tools.call': ToolCallParams;
  'tools.search': ToolSearchParams;
  'tools.describe': ToolDescribeParams;
}

/** What a bridge learns about the call besides its parameters. */
export interface HostCallContext {
  /** Aborted when the run ends (timeout, cancellation, violation) before the call was answered. */
  signal: AbortSignal;
}

/**
 * Answers the program's host calls. Resolves with a JSON-serialisable value or rejects with a
 * GatewayError (its code and message must reach the program as an Error with `.code`).
 * `params` has the shape `HostMethodParams[method]`; the sandbox validates it first.
 * At most 8 calls of one run are in flight at a time; the rest wait in order.
 */
export type HostBridge = (method: HostMethod, params: unknown, context: HostCallContext) => Promise<unknown>;

/** One execution. */
export interface SandboxRequest {
  /** JavaScript: the body of an async function (`return` gives the result, `await` works). */
  code: string;
  limits: SandboxLimits;
  bridge: HostBridge;
  /** Tool ids exposed as typed proxies: `ns:name` becomes `tools.ns.name(args)`. */
  toolIds: readonly string[];
  /** Aborting it ends the run with `cancelled`. */
  signal?: AbortSignal | undefined;
}

/** One captured console line. */
export interface SandboxLog {
  level: 'log' | 'info' | 'warn' | 'error';
  message: string;
}

/** A successful run. */
export interface SandboxOutcome {
  /** The returned value after a JSON round trip (`undefined` becomes `null`). */
  value: unknown;
  logs: SandboxLog[];
  /** Wall-clock time from `run()` to the outcome. */
  durationMs: number;
}

/**
 * Runs untrusted JavaScript in containment.
 *
 * `run` rejects only with GatewayError:
 * - `invalid_request`: syntax error (`details: { line, column }`, 1-based, relative to `code`) or bad limits;
 * - `timeout`: `limits.timeoutMs` elapsed;
 * - `cancelled`: `signal` aborted;
 * - `sandbox_violation` with `details.limit`: `memory_mb`, `stack_size`, `max_result_bytes`, `json`
 *   (result not JSON-serialisable), `max_tool_calls`, `max_host_calls`;
 * - `execution_failed`: the program threw (`details`: `name`, `code?`, `line?`, `column?`, `stack?`);
 * - `rate_limited`: the queue is full; `backend_unavailable`: the sandbox is closed or cannot start;
 * - `internal`: the runner crashed.
 * Failures after the program started carry `details.logs` when it logged anything.
 * Console output over `maxLogBytes` is truncated (with a final warning entry), never an error.
 */
export interface Sandbox {
  /** `'quickjs'`, `'child-process'`, … */
  readonly kind: string;
  run(request: SandboxRequest): Promise<SandboxOutcome>;
  /** Stops every runner; pending and later runs fail with `backend_unavailable`. */
  close(): Promise<void>;
}
