import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  type User,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { readJsonBody } from '../http/read-json-body.js';
import { callContext, extensionHeaders } from './call-context.js';
import { sseResponse } from './sse-response.js';

export interface JsonRpcEndpointOptions {
  requestHandler: A2ARequestHandler;
  maxBodyBytes: number;
  log: Logger;
  /** The SDK user of a request (its caller and scope); default: the unauthenticated user. */
  userOf?: (c: Context) => User | undefined;
}

type RequestId = string | number | null;

const JSON_RPC_PARSE_ERROR = -32700;
const JSON_RPC_INVALID_REQUEST = -32600;

/**
 * `POST /a2a`: A2A over JSON-RPC 2.0, both protocol generations on one URL. v1.0 method names
 * (`SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, …) go to the SDK's v1.0
 * handler; v0.3 names (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, …) and
 * anything unrecognised go to its v0.3 compat handler, as the spec's default-to-0.3 rule asks.
 * Streaming methods answer with Server-Sent Events.
 */
export function jsonRpcEndpoint(options: JsonRpcEndpointOptions): (c: Context) => Promise<Response> {
  const { requestHandler, log } = options;
  const v1 = new JsonRpcTransportHandler(requestHandler);
  const legacy = new LegacyJsonRpcTransportHandler(requestHandler);

  return async (c) => {
    const contentType = c.req.header('content-type');
    if (contentType !== undefined && !isJsonMediaType(contentType)) {
      const error = new ContentTypeNotSupportedError(
        `Unsupported Content-Type "${contentType}"; expected application/json`,
      );
      return rpcError(c, null, JsonRpcTransportHandler.mapToJSONRPCError(error), 415);
    }
    let body: unknown;
    try {
      body = await readJsonBody(c, options.maxBodyBytes);
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'payload_too_large') {
        return rpcError(c, null, { code: JSON_RPC_INVALID_REQUEST, message: error.message }, 413);
      }
      const message = error instanceof Error ? error.message : 'Invalid JSON payload.';
      return rpcError(c, null, { code: JSON_RPC_PARSE_ERROR, message }, 400);
    }
    const id = requestIdOf(body);
    const method = isRecord(body) ? body.method : undefined;
    const useLegacy = isLegacyJsonRpcMethod(method) || !isV1JsonRpcMethod(method);
    const mapError = useLegacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    try {
      if (!isRecord(body)) throw new RequestMalformedError('A JSON-RPC request must be a JSON object');
      const context = callContext(c, useLegacy, options.userOf?.(c));
      validateVersion(context.requestedVersion, await requestHandler.getAgentCard(), 'JSONRPC');
      const outcome = await (useLegacy ? legacy : v1).handle(body, context);
      const headers = extensionHeaders(context, useLegacy);
      if (!isAsyncGenerator(outcome)) return c.json(outcome, 200, headers);
      const sse = await sseResponse(outcome, {
        encode: (event) => event,
        encodeError: (error) => ({ jsonrpc: '2.0', id, error: mapError(error) }),
        headers,
        log,
      });
      return sse.ok ? sse.response : rpcError(c, id, mapError(sse.error), 200);
    } catch (error) {
      log.debug({ err: error }, 'A2A JSON-RPC request failed');
      return rpcError(c, id, mapError(error), 200);
    }
  };
}

function rpcError(c: Context, id: RequestId, error: unknown, status: number): Response {
  return c.json({ jsonrpc: '2.0', id, error }, status as ContentfulStatusCode);
}

function requestIdOf(body: unknown): RequestId {
  if (!isRecord(body)) return null;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
}

function isJsonMediaType(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/a2a+json';
}

function isAsyncGenerator<T>(
  value: T | AsyncGenerator<T, void, undefined>,
): value is AsyncGenerator<T, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
