import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { INVALID_REQUEST, PARSE_ERROR } from '@modelcontextprotocol/server';
import { forEachLine, isBlank } from '../../foundation/util/each-line.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { isRequestId, readJsonRpcMessage } from '../../foundation/util/json-rpc-line.js';

/** Longest line read from the client (a base64 file in a call's arguments fits many times). */
const MAX_LINE_LENGTH = 64 * 1024 * 1024;

/**
 * The gateway's MCP server transport over stdin/stdout, one JSON-RPC message per line, in place of
 * the SDK's: the same protocol, with two differences a client can see.
 *
 * - A request is read without the SDK's message schema when it is plain (`foundation/util/json-rpc-line.ts`):
 *   the schema ran on every call before the SDK checked the request's params with their own schema
 *   anyway.
 * - A line that cannot be a message is answered instead of dropped: one that is not JSON with a
 *   -32700 parse error, a request or notification the schema refuses with -32600 and the request's
 *   id when it has a usable one, a line longer than 64 Mi characters with -32600. A client that sent
 *   a malformed request learns so at once rather than waiting for its timeout. The connection lives
 *   on either way. Nothing is answered to a malformed response (JSON-RPC answers requests only).
 *
 * The transport closes when stdin ends or stdout fails, as the SDK's does.
 */
export class StdioServerTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  private started = false;
  private closed = false;
  private stopReading: (() => void) | undefined;

  constructor(
    private readonly stdin: NodeJS.ReadableStream & {
      readableEnded?: boolean;
      destroyed?: boolean;
    } = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioServerTransport already started');
    this.started = true;
    this.stopReading = forEachLine(this.stdin, (line) => this.receive(line), {
      maxLineLength: this.maxLineLength,
      onOverlong: () =>
        this.refuse(
          undefined,
          INVALID_REQUEST,
          `Invalid Request: a line is longer than ${this.maxLineLength} characters`,
        ),
    });
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onStdinError);
    this.stdout.on('error', this.onStdoutError);
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('StdioServerTransport is closed'));
    const line = `${JSON.stringify(message)}\n`;
    if (this.stdout.write(line)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        this.stdout.removeListener('drain', settle);
        this.stdout.removeListener('error', settle);
        if (error) reject(error);
        else resolve();
      };
      this.stdout.once('drain', settle);
      this.stdout.once('error', settle);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReading?.();
    this.stdin.removeListener('end', this.onEnd);
    this.stdin.removeListener('close', this.onEnd);
    this.stdin.removeListener('error', this.onStdinError);
    // The stdout listener stays: a write still in flight may fail once the client has gone (EPIPE),
    // and an 'error' event nobody listens to would end the process.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  private receive(line: string): void {
    if (this.closed || isBlank(line)) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.refuse(undefined, PARSE_ERROR, 'Parse error: the line is not JSON');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = readJsonRpcMessage(value);
    } catch (error) {
      const what = `Invalid Request: ${refusalOf(value, error)}`;
      if (isAnswerable(value)) this.refuse(requestIdOf(value), INVALID_REQUEST, what);
      else this.onerror?.(new Error(what));
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers a line that is not a message, and reports it. */
  private refuse(id: string | number | undefined, code: number, message: string): void {
    this.onerror?.(new Error(message));
    const answer = { jsonrpc: '2.0' as const, ...(id === undefined ? {} : { id }), error: { code, message } };
    this.send(answer as JSONRPCMessage).catch(() => {});
  }

  private readonly onEnd = () => {
    void this.close();
  };

  private readonly onStdinError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onStdoutError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };
}

/** A request or notification (not a response): JSON-RPC answers what was meant as one. */
function isAnswerable(value: unknown): boolean {
  return !isRecord(value) || (!('result' in value) && !('error' in value));
}

/** The id to answer with: a string or a safe integer, else none. */
function requestIdOf(value: unknown): string | number | undefined {
  return isRecord(value) && isRequestId(value.id) ? value.id : undefined;
}

/** What makes `value` no JSON-RPC message, in a few words. */
function refusalOf(value: unknown, error: unknown): string {
  if (!isRecord(value)) {
    return Array.isArray(value) ? 'batches are not read on stdio' : 'a message is a JSON object';
  }
  const message = value;
  if (message.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('method' in message && typeof message.method !== 'string') return '"method" must be a string';
  if ('id' in message && requestIdOf(message) === undefined) return '"id" must be a string or an integer';
  const { params } = message;
  if (params !== undefined && !isRecord(params)) {
    return '"params" must be an object';
  }
  const issue = (error as { issues?: { path?: PropertyKey[]; message?: string }[] } | undefined)?.issues?.[0];
  const where = issue?.path?.length ? ` (${issue.path.map(String).join('.')})` : '';
  return `not a JSON-RPC 2.0 request, notification or response${where}`;
}
