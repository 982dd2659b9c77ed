import { Buffer } from 'node:buffer';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
  VmCallResult,
} from 'quickjs-emscripten';
import { LogBuffer } from './log-buffer.js';
import {
  classifyGuestError,
  type FailureStage,
  type GuestErrorInfo,
  stackViolation,
  timeoutError,
  violation,
} from './program-error.js';
import { GUEST_PRELUDE, toolIndexJson } from './quickjs-guest.js';
import { type ErrorDescriptor, isHostMethod, type ReplyMessage, type RunMessage } from './runner-protocol.js';
import type { HostMethod, SandboxLog } from './sandbox.js';

/**
 * QuickJS stack budget. The interpreter's frames also use the native stack of the thread that
 * runs the WebAssembly, at up to ~16x this size (measured with deep JSON.stringify), so runner
 * threads get `RUNNER_STACK_MB` stacks. 1 MiB allows ~6000 plain recursive calls.
 */
const STACK_BYTES = 1024 * 1024;
/** search/describe calls are not in `maxToolCalls`, but a loop of them must still end. */
const MAX_OTHER_HOST_CALLS = 1000;
const MAX_PENDING_TIMERS = 1000;
const MAX_DESCRIPTION_CHARS = 64 * 1024;

/** How the program asks the host for something. */
export type SendHostCall = (callId: number, method: HostMethod, params: string) => void;

type Outcome = { ok: true; json: string } | { ok: false; error: ErrorDescriptor };

/** The run ends with this descriptor (thrown internally to unwind). */
class Stop {
  constructor(readonly error: ErrorDescriptor) {}
}

interface GuestFns {
  compile: QuickJSHandle;
  finish: QuickJSHandle;
  describe: QuickJSHandle;
}

/**
 * One program run inside one fresh QuickJS runtime, in a runner thread. Drives the event loop:
 * run pending jobs, and while the program's promise is pending, wait for host replies or timers.
 * Limits enforced here: time (interrupt handler + the wait loop), memory (the instance's capped
 * linear memory, see QuickJsEngine), stack, tool-call count, console bytes, result bytes.
 */
export class QuickJsProgram {
  /**
   * The WebAssembly instance must not be reused: a trap, or QuickJS aborting in `JS_FreeRuntime`
   * (its release build asserts on objects leaked by an out-of-memory or interrupted run).
   */
  broken = false;
  /** A fault surfaced while the program ran (not only at cleanup): the runner asks to be replaced. */
  faulted = false;
  private readonly runtime: QuickJSRuntime;
  private readonly vm: QuickJSContext;
  private readonly logs: LogBuffer;
  private readonly handles: QuickJSHandle[] = [];
  private readonly pending = new Map<number, QuickJSDeferredPromise>();
  private readonly sleeps = new Map<number, { deferred: QuickJSDeferredPromise; timer: NodeJS.Timeout }>();
  private readonly inbox: Array<() => void> = [];
  private wake: (() => void) | undefined;
  private failure: ErrorDescriptor | undefined;
  private fns: GuestFns | undefined;
  private toolCalls = 0;
  private otherCalls = 0;
  private lastId = 0;

  constructor(
    module: QuickJSWASMModule,
    private readonly job: RunMessage,
    private readonly sendHostCall: SendHostCall,
  ) {
    this.logs = new LogBuffer(job.limits.maxLogBytes);
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(Math.floor(job.limits.memoryMb * 1024 * 1024));
    this.runtime.setMaxStackSize(STACK_BYTES);
    this.runtime.setInterruptHandler(() => this.failure !== undefined || Date.now() > job.deadline);
    this.vm = this.runtime.newContext();
  }

  /** The logs so far (complete once `run` settled). */
  get logEntries(): SandboxLog[] {
    return this.logs.entries;
  }

  /** Delivers the host's answer to one call; applied by the run loop. */
  deliver(reply: ReplyMessage): void {
    const deferred = this.pending.get(reply.callId);
    if (!deferred) return;
    this.pending.delete(reply.callId);
    this.inbox.push(() => this.settle(deferred, reply));
    this.wake?.();
  }

  /** Runs the program to its end. Never rejects. */
  async run(): Promise<Outcome> {
    let outcome: Outcome;
    try {
      outcome = await this.execute();
    } catch (error) {
      outcome = { ok: false, error: error instanceof Stop ? error.error : this.engineFault(error) };
    }
    this.dispose();
    return outcome;
  }

  private async execute(): Promise<Outcome> {
    const vm = this.vm;
    const fns = this.boot();
    const compiled = vm
      .newString(this.job.code)
      .consume((code) => vm.callFunction(fns.compile, vm.undefined, code));
    if (compiled.error) throw new Stop(this.classify(compiled.error, 'compile'));
    const started = compiled.value.consume((fn) => vm.callFunction(fn, vm.undefined));
    const promise = this.keep(this.expect(started, 'program'));
    for (;;) {
      for (let apply = this.inbox.shift(); apply; apply = this.inbox.shift()) apply();
      const jobs = this.runtime.executePendingJobs(-1);
      if (jobs.error) throw new Stop(this.classify(jobs.error, 'program'));
      this.checkStop();
      const state = vm.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        // Kept, not consumed: `serialise` may throw, and `consume` does not dispose on a throw.
        return this.serialise(state.notAPromise ? state.value : this.keep(state.value));
      }
      if (state.type === 'rejected') throw new Stop(this.classify(state.error, 'program'));
      if (this.idle()) {
        throw new Stop({
          code: 'execution_failed',
          message: 'the program awaits a promise that nothing can settle (no tool call or timer is pending)',
        });
      }
      await this.nextEvent();
    }
  }

  /** Evaluates the prelude and wires the host functions; returns the guest internals. */
  private boot(): GuestFns {
    const vm = this.vm;
    const factory = this.keep(this.expect(vm.evalCode(GUEST_PRELUDE, 'aperture-prelude.js'), 'boot'));
    const args = [
      this.keep(vm.newFunction('hostCall', (method, params) => this.hostCall(method, params))),
      this.keep(vm.newFunction('hostLog', (level, text) => this.hostLog(level, text))),
      this.keep(vm.newFunction('hostSleep', (ms) => this.hostSleep(ms))),
      this.keep(vm.newString(toolIndexJson(this.job.toolIds))),
      this.keep(vm.newNumber(this.job.limits.maxLogBytes + 1)),
    ];
    const internals = this.keep(this.expect(vm.callFunction(factory, vm.undefined, ...args), 'boot'));
    this.fns = {
      compile: this.keep(vm.getProp(internals, 'compile')),
      finish: this.keep(vm.getProp(internals, 'finish')),
      describe: this.keep(vm.getProp(internals, 'describe')),
    };
    return this.fns;
  }

  private hostCall(methodHandle: QuickJSHandle, paramsHandle: QuickJSHandle): VmCallResult<QuickJSHandle> {
    const vm = this.vm;
    if (this.failure) return this.guestError('Error', 'the run is over');
    const method = this.readString(methodHandle, 32);
    if (!isHostMethod(method)) return this.guestError('TypeError', 'unknown host method');
    const max = this.job.limits.maxResultBytes;
    const params = this.readString(paramsHandle, max);
    if (params === undefined) return this.guestError('TypeError', 'host call parameters must be JSON text');
    if (params === null || Buffer.byteLength(params) > max) {
      const message = `the arguments of ${method} are larger than maxResultBytes (${max} bytes)`;
      return this.guestError('GatewayError', message, 'payload_too_large');
    }
    if (method === 'tools.call') {
      if (++this.toolCalls > this.job.limits.maxToolCalls) {
        // The interrupt handler sees `failure` and ends the run; the program cannot catch that.
        this.failure = {
          code: 'sandbox_violation',
          message: `the program made more than ${this.job.limits.maxToolCalls} tool calls`,
          details: { limit: 'max_tool_calls' },
        };
        return this.guestError('GatewayError', this.failure.message, 'sandbox_violation');
      }
    } else if (++this.otherCalls > MAX_OTHER_HOST_CALLS) {
      this.failure = {
        code: 'sandbox_violation',
        message: `the program made more than ${MAX_OTHER_HOST_CALLS} tools.search/tools.describe calls`,
        details: { limit: 'max_host_calls' },
      };
      return this.guestError('GatewayError', this.failure.message, 'sandbox_violation');
    }
    const callId = ++this.lastId;
    const deferred = vm.newPromise();
    this.pending.set(callId, deferred);
    this.sendHostCall(callId, method, params);
    // The library disposes the returned handle after copying it; the deferred keeps its own.
    return { value: deferred.handle.dup() };
  }

  private hostLog(levelHandle: QuickJSHandle, textHandle: QuickJSHandle): QuickJSHandle {
    const level = this.readString(levelHandle, 8);
    const text = this.readString(textHandle, this.job.limits.maxLogBytes + 1);
    const known = level === 'log' || level === 'info' || level === 'warn' || level === 'error';
    const message = typeof text === 'string' ? text : text === null ? '[message too long]' : '';
    return this.logs.add(known ? level : 'log', message) ? this.vm.true : this.vm.false;
  }

  private hostSleep(msHandle: QuickJSHandle): VmCallResult<QuickJSHandle> {
    if (this.sleeps.size >= MAX_PENDING_TIMERS) {
      return this.guestError('RangeError', `more than ${MAX_PENDING_TIMERS} pending timers`);
    }
    const requested = this.vm.typeof(msHandle) === 'number' ? this.vm.getNumber(msHandle) : 0;
    const remaining = Math.max(0, this.job.deadline - Date.now());
    const ms = Number.isFinite(requested) ? Math.min(Math.max(0, requested), remaining + 1) : 0;
    const id = ++this.lastId;
    const deferred = this.vm.newPromise();
    const timer = setTimeout(() => {
      this.sleeps.delete(id);
      this.inbox.push(() => {
        deferred.resolve();
        deferred.dispose();
      });
      this.wake?.();
    }, ms);
    this.sleeps.set(id, { deferred, timer });
    return { value: deferred.handle.dup() };
  }

  /** Resolves a host call's promise with the JSON reply envelope the guest's `request` parses. */
  private settle(deferred: QuickJSDeferredPromise, reply: ReplyMessage): void {
    let envelope = reply.ok
      ? `{"ok":true,"value":${reply.json}}`
      : JSON.stringify({ ok: false, ...reply.error });
    if (envelope.length > this.job.limits.memoryMb * 1024 * 1024) {
      envelope = JSON.stringify({
        ok: false,
        code: 'payload_too_large',
        message: `the host's answer is larger than the program's memory limit (${this.job.limits.memoryMb} MiB)`,
      });
    }
    const value = this.vm.newString(envelope);
    try {
      deferred.resolve(value);
    } finally {
      value.dispose();
      deferred.dispose();
    }
  }

  /** Dumps the result inside the VM with the JSON.stringify captured before the program ran. */
  private serialise(value: QuickJSHandle): Outcome {
    const vm = this.vm;
    const finish = this.fns?.finish ?? vm.undefined;
    const result = vm.callFunction(finish, vm.undefined, value);
    if (result.error) throw new Stop(this.classify(result.error, 'result'));
    const max = this.job.limits.maxResultBytes;
    const json = result.value.consume((handle) => this.readString(handle, max));
    if (json === undefined) throw new Stop(violation('json', 'the result is not JSON-serialisable'));
    if (json === null || Buffer.byteLength(json) > max) {
      throw new Stop(
        violation('max_result_bytes', `the result is larger than maxResultBytes (${max} bytes)`),
      );
    }
    return { ok: true, json };
  }

  /** Turns a thrown VM value into the run's error (host-side stops win, see classifyGuestError). */
  private classify(errorHandle: QuickJSHandle, stage: FailureStage): ErrorDescriptor {
    // QuickJS leaves `null` as the exception when an allocation fails on a path that cannot build
    // its "out of memory" error (growing a Map, for one).
    const thrownNull = this.vm.typeof(errorHandle) === 'object' && this.vm.dump(errorHandle) === null;
    const info = errorHandle.consume((handle) => this.describe(handle));
    return this.stopReason() ?? classifyGuestError(info, stage, this.job.code, this.job.limits, thrownNull);
  }

  /** Runs the guest's `describe` on a thrown value; undefined when even that fails. */
  private describe(handle: QuickJSHandle): GuestErrorInfo | undefined {
    const vm = this.vm;
    if (!this.fns) return undefined;
    const described = vm.callFunction(this.fns.describe, vm.undefined, handle);
    if (described.error) {
      described.error.dispose();
      return undefined;
    }
    const text = described.value.consume((value) => this.readString(value, MAX_DESCRIPTION_CHARS));
    if (typeof text !== 'string') return undefined;
    try {
      return JSON.parse(text) as GuestErrorInfo;
    } catch {
      return undefined;
    }
  }

  private expect(result: VmCallResult<QuickJSHandle>, stage: 'boot' | 'program'): QuickJSHandle {
    if (result.error) throw new Stop(this.classify(result.error, stage));
    return result.value;
  }

  private checkStop(): void {
    const stop = this.stopReason();
    if (stop) throw new Stop(stop);
  }

  private stopReason(): ErrorDescriptor | undefined {
    if (this.failure) return this.failure;
    return Date.now() > this.job.deadline ? timeoutError(this.job.limits) : undefined;
  }

  /** A WebAssembly-level fault (trap, native stack overflow): the instance cannot be trusted after it. */
  private engineFault(error: unknown): ErrorDescriptor {
    this.broken = true;
    this.faulted = true;
    const stop = this.stopReason();
    if (stop) return stop;
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return stackViolation();
    }
    const message = error instanceof Error ? error.message : String(error);
    return { code: 'internal', message: `the sandbox engine failed: ${message}` };
  }

  private idle(): boolean {
    return (
      this.inbox.length === 0 &&
      this.pending.size === 0 &&
      this.sleeps.size === 0 &&
      !this.runtime.hasPendingJob()
    );
  }

  /** Waits for a host reply, a timer or the deadline. */
  private async nextEvent(): Promise<void> {
    if (this.inbox.length > 0) return;
    const remaining = this.job.deadline - Date.now();
    if (remaining < 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, remaining + 1);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /**
   * A string from the VM: undefined when not a string, null when longer than `maxChars` (checked
   * before copying, so a huge string never crosses into the host).
   */
  private readString(handle: QuickJSHandle, maxChars: number): string | null | undefined {
    if (this.vm.typeof(handle) !== 'string') return undefined;
    const length = this.vm.getProp(handle, 'length').consume((h) => this.vm.getNumber(h));
    if (length > maxChars) return null;
    return this.vm.getString(handle);
  }

  private guestError(name: string, message: string, code?: string): { error: QuickJSHandle } {
    const error = this.vm.newError({ name, message });
    if (code !== undefined) this.vm.newString(code).consume((value) => this.vm.setProp(error, 'code', value));
    return { error };
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  private dispose(): void {
    for (const { deferred, timer } of this.sleeps.values()) {
      clearTimeout(timer);
      this.quietly(() => deferred.dispose());
    }
    for (const deferred of this.pending.values()) this.quietly(() => deferred.dispose());
    for (const handle of this.handles) this.quietly(() => handle.alive && handle.dispose());
    this.sleeps.clear();
    this.pending.clear();
    this.quietly(() => this.vm.dispose());
    this.quietly(() => this.runtime.dispose());
  }

  private quietly(action: () => unknown): void {
    try {
      action();
    } catch {
      this.broken = true;
    }
  }
}
