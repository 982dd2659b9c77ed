import { ClientRequestSchema } from '@modelcontextprotocol/core';
import type { Server } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { requestHandlerTable } from './sdk-internals.js';

interface ParseableSchema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };
  };
}

/** The SDK's schema of every client request, by method. */
const REQUEST_SCHEMAS = new Map<string, ParseableSchema>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema as ParseableSchema]),
);

/** Issues shown in a message; the rest are counted. */
const MAX_ISSUES = 3;

/**
 * Makes a malformed client request a JSON-RPC -32602 (invalid params) with a short message naming
 * the fields, e.g. `Invalid params for tools/call: params.name: expected string`.
 *
 * The SDK parses a request with its zod schema before any handler runs, and a parse failure
 * escapes as -32603 (internal error) whose message is the whole zod issue dump: the server blamed
 * for the caller's mistake. Its handler table is not public (`sdk-internals.ts`), so this wraps the handlers already
 * registered on `server` (call it after the last `setRequestHandler`). A request is checked again
 * only when its handler failed, so a well-formed call is parsed once, by the SDK: when the check
 * finds the params malformed, that is the answer; otherwise the handler's failure is left as it is
 * (it is not the request's shape).
 */
export function guardRequestParams(server: Server): void {
  const handlers = requestHandlerTable(server);
  if (!handlers) return;
  for (const [method, handler] of handlers) {
    const schema = REQUEST_SCHEMAS.get(method);
    if (!schema) continue;
    const refusal = (request: unknown, failure: unknown) => {
      const parsed = schema.safeParse(request);
      return parsed.success
        ? failure
        : new ProtocolError(ProtocolErrorCode.InvalidParams, invalidParamsMessage(method, parsed.error));
    };
    handlers.set(method, (request, extra) => {
      let answer: Promise<unknown>;
      try {
        answer = handler(request, extra);
      } catch (failure) {
        // The SDK's check of some methods throws before any promise is made.
        return Promise.reject(refusal(request, failure));
      }
      return answer.catch((failure: unknown) => Promise.reject(refusal(request, failure)));
    });
  }
}

function invalidParamsMessage(
  method: string,
  error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } | undefined,
): string {
  const issues = error?.issues ?? [];
  const shown = issues
    .slice(0, MAX_ISSUES)
    .map((issue) => `${issue.path.map(String).join('.') || '(request)'}: ${firstLine(issue.message)}`);
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return `Invalid params for ${method}: ${shown.join('; ') || 'malformed request'}${more}`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
