import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import { isRecord } from '../../foundation/util/is-record.js';
import type { CallMessage, ErrorDescriptor, ReplyMessage } from './runner-protocol.js';
import type { HostMethod, HostMethodParams, SandboxRequest } from './sandbox.js';

/** Calls of one run answered at the same time; a `Promise.all` of thousands waits its turn. */
export const MAX_CONCURRENT_HOST_CALLS = 8;
/** Calls of one run waiting for a slot; past this the runner is not pacing itself and the run ends. */
const MAX_WAITING_HOST_CALLS = 10_000;

/**
 * The host side of one run's `tools.*` calls. It sits on the host's side of the thread/process
 * boundary, so nothing the program does inside the engine (replacing `tools.call`, calling the raw
 * host function) can skip its checks: it re-validates every parameter, counts `tools.call` against
 * `maxToolCalls` itself, bounds concurrency, and encodes answers as JSON text.
 */
export class HostCalls {
  private readonly waiting: CallMessage[] = [];
  private readonly abort = new AbortController();
  private active = 0;
  private toolCalls = 0;
  private closed = false;

  constructor(
    private readonly request: SandboxRequest,
    private readonly reply: (message: ReplyMessage) => void,
    private readonly violation: (error: GatewayError) => void,
  ) {}

  /** Accepts one call from the runner. */
  enqueue(call: CallMessage): void {
    if (this.closed) return;
    const max = this.request.limits.maxToolCalls;
    if (call.method === 'tools.call' && ++this.toolCalls > max) {
      // The runner counts too and should have stopped the run; reaching here means it did not.
      this.violation(
        new GatewayError('sandbox_violation', `the program made more than ${max} tool calls`, {
          details: { limit: 'max_tool_calls' },
        }),
      );
      return;
    }
    if (this.waiting.length >= MAX_WAITING_HOST_CALLS) {
      this.violation(
        new GatewayError(
          'sandbox_violation',
          `the program has more than ${MAX_WAITING_HOST_CALLS} host calls waiting`,
          {
            details: { limit: 'max_host_calls' },
          },
        ),
      );
      return;
    }
    this.waiting.push(call);
    this.drain();
  }

  /** The run is over: drop queued calls, abort in-flight ones, ignore their answers. */
  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.abort.abort();
  }

  private drain(): void {
    while (!this.closed && this.active < MAX_CONCURRENT_HOST_CALLS) {
      const call = this.waiting.shift();
      if (!call) return;
      this.active++;
      void this.answer(call).finally(() => {
        this.active--;
        this.drain();
      });
    }
  }

  private async answer(call: CallMessage): Promise<void> {
    let message: ReplyMessage;
    try {
      const params = parseHostParams(call.method, call.params);
      const value = await this.request.bridge(call.method, params, { signal: this.abort.signal });
      const json = JSON.stringify(value === undefined ? null : value);
      if (typeof json !== 'string')
        throw new GatewayError('internal', `the answer of ${call.method} is not JSON`);
      message = { type: 'reply', runId: call.runId, callId: call.callId, ok: true, json };
    } catch (error) {
      message = { type: 'reply', runId: call.runId, callId: call.callId, ok: false, error: describe(error) };
    }
    if (!this.closed) this.reply(message);
  }
}

/** The wire form of a bridge failure; details survive only if they are plain JSON. */
function describe(error: unknown): ErrorDescriptor {
  const gatewayError = toGatewayError(error);
  const descriptor: ErrorDescriptor = { code: gatewayError.code, message: gatewayError.message };
  if (gatewayError.details !== undefined) {
    try {
      descriptor.details = JSON.parse(JSON.stringify(gatewayError.details)) as Record<string, unknown>;
    } catch {
      // Unserialisable details are dropped rather than failing the call.
    }
  }
  return descriptor;
}

/** Parses and checks the parameters of one host call (`invalid_request` when malformed). */
export function parseHostParams<M extends HostMethod>(method: M, text: string): HostMethodParams[M] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_request', `${method}: parameters are not JSON`);
  }
  if (!isRecord(raw)) throw new GatewayError('invalid_request', `${method}: parameters must be an object`);
  const params = parseByMethod(method, raw);
  return params as HostMethodParams[M];
}

function parseByMethod(method: HostMethod, raw: Record<string, unknown>): HostMethodParams[HostMethod] {
  switch (method) {
    case 'tools.call':
      return { id: toolId(method, raw.id), args: raw.args === undefined ? {} : raw.args };
    case 'tools.search': {
      if (typeof raw.query !== 'string')
        throw new GatewayError('invalid_request', `${method}: query must be a string`);
      const options = raw.options === undefined ? {} : raw.options;
      if (!isRecord(options))
        throw new GatewayError('invalid_request', `${method}: options must be an object`);
      return { query: raw.query, options };
    }
    case 'tools.describe':
      return { id: toolId(method, raw.id) };
  }
}

function toolId(method: HostMethod, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new GatewayError('invalid_request', `${method}: the tool id must be a non-empty string`);
  }
  return value;
}
