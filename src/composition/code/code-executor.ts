import { performance } from 'node:perf_hooks';
import type { HostBridge, Sandbox, SandboxLimits, SandboxLog } from '../../execution/code/sandbox.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import { resultValue } from '../../foundation/model/result-value.js';
import { sessionOf } from '../../foundation/ports/tool-backend.js';
import type { CallOptions, ToolScope } from '../tool-scope.js';
import { stripTypes } from './strip-types.js';

/** What `execute_code` accepts (docs/DESIGN.md §4 metatool parameters). */
export interface ExecuteCodeRequest {
  code: string;
  language?: 'javascript' | 'typescript' | undefined;
  timeout_ms?: number | undefined;
  max_tool_calls?: number | undefined;
  memory_mb?: number | undefined;
}

/** One tool call a program made, as reported back. */
export interface ToolCallRecord {
  tool_id: string;
  ms: number;
  ok: boolean;
  code?: string;
}

export interface ExecuteCodeResult {
  value: unknown;
  logs: SandboxLog[];
  toolCalls: ToolCallRecord[];
  durationMs: number;
}

interface Limits {
  timeoutMs: number;
  maxToolCalls: number;
  memoryMb: number;
}

export interface CodeExecutorOptions {
  sandbox: Sandbox;
  /** Used when a call does not set a limit. */
  defaults: Limits;
  /** The most a call may ask for. */
  maxima: Limits;
  maxLogBytes: number;
  maxResultBytes: number;
}

/**
 * Code mode: runs an agent's program in the sandbox, with a `tools` bridge that goes through the
 * caller's scope — so a program can reach exactly the tools the caller could reach with
 * `run_tool`, through the same pipeline (validation, timeouts, authorization).
 */
export class CodeExecutor {
  constructor(private readonly options: CodeExecutorOptions) {}

  async execute(
    scope: ToolScope,
    request: ExecuteCodeRequest,
    call: CallOptions,
  ): Promise<ExecuteCodeResult> {
    const limits = this.limits(request);
    const code = request.language === 'typescript' ? await stripTypes(request.code) : request.code;
    const toolCalls: ToolCallRecord[] = [];
    const bridge: HostBridge = async (method, params, context) => {
      const p = (params ?? {}) as Record<string, unknown>;
      switch (method) {
        case 'tools.call': {
          // A call still running when the program ends (deadline, violation) is cancelled too.
          const signal = call.signal ? AbortSignal.any([call.signal, context.signal]) : context.signal;
          return this.callTool(scope, { ...call, signal }, String(p.id), p.args, toolCalls);
        }
        case 'tools.search': {
          const options = (p.options ?? {}) as { limit?: number; namespace?: string; tags?: string[] };
          return scope.search({
            session: sessionOf(call.caller),
            query: String(p.query ?? ''),
            limit: options.limit ?? 10,
            namespace: options.namespace,
            tags: options.tags,
          });
        }
        case 'tools.describe':
          return scope.describe(String(p.id), 'schema');
        default:
          throw new GatewayError('invalid_request', `Unknown host method ${String(method)}`);
      }
    };
    const started = performance.now();
    const outcome = await this.options.sandbox.run({
      code,
      limits,
      bridge,
      toolIds: scope.tools().map((t) => t.id),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    return {
      value: outcome.value,
      logs: outcome.logs,
      toolCalls,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
  }

  private async callTool(
    scope: ToolScope,
    call: CallOptions,
    id: string,
    args: unknown,
    records: ToolCallRecord[],
  ): Promise<unknown> {
    const started = performance.now();
    try {
      // Progress of inner calls is not the program's progress; keep caller, signal and timeouts,
      // and the way back to the client: a tool that asks its client something (elicitation,
      // sampling, roots) asks the agent that ran the program. The program's calls are code mode's,
      // whichever surface ran the program.
      const result = await scope.run(id, args ?? {}, {
        caller: { ...call.caller, surface: 'code' },
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.parent ? { parent: call.parent } : {}),
        ...(call.channel ? { channel: call.channel } : {}),
      });
      records.push({ tool_id: id, ms: elapsed(started), ok: true });
      return resultValue(result);
    } catch (error) {
      const failure = toGatewayError(error);
      records.push({ tool_id: id, ms: elapsed(started), ok: false, code: failure.code });
      throw failure;
    }
  }

  private limits(request: ExecuteCodeRequest): SandboxLimits {
    const { defaults, maxima } = this.options;
    const pick = (value: number | undefined, key: keyof Limits, field: string): number => {
      if (value === undefined) return defaults[key];
      if (value > maxima[key]) {
        throw new GatewayError('validation_input', `${field} may be at most ${maxima[key]}`, {
          details: { issues: [{ path: `/${field}`, message: `must be <= ${maxima[key]}` }] },
        });
      }
      return value;
    };
    return {
      timeoutMs: pick(request.timeout_ms, 'timeoutMs', 'timeout_ms'),
      maxToolCalls: pick(request.max_tool_calls, 'maxToolCalls', 'max_tool_calls'),
      memoryMb: pick(request.memory_mb, 'memoryMb', 'memory_mb'),
      maxLogBytes: this.options.maxLogBytes,
      maxResultBytes: this.options.maxResultBytes,
    };
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
