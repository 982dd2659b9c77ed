import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { HttpResponse } from './http-client.js';
import { readResponse } from './response-reader.js';

function response(
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): HttpResponse {
  const statusText =
    { 200: 'OK', 429: 'Too Many Requests', 503: 'Service Unavailable', 502: 'Bad Gateway' }[status] ?? '';
  return {
    status,
    statusText,
    headers: new Headers({ 'content-type': type, ...extra }),
    body: Buffer.from(body),
  };
}

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('readResponse', () => {
  it('returns JSON objects as they are and wraps other JSON values', () => {
    expect(readResponse(response(200, 'application/json', '{"a":1}'))).toEqual({ a: 1 });
    expect(readResponse(response(200, 'application/problem+json; charset=utf-8', '"x"'))).toEqual({
      result: 'x',
    });
    expect(readResponse(response(200, 'application/vnd.api+json', 'null'))).toEqual({ result: null });
  });

  it('decodes text with its charset and describes binary bodies', () => {
    expect(readResponse(response(200, 'text/csv', 'a,b'))).toBe('a,b');
    const latin1 = {
      ...response(200, 'text/plain; charset=iso-8859-1', ''),
      body: Uint8Array.from([0x63, 0x61, 0x66, 0xe9]),
    };
    expect(readResponse(latin1)).toBe('café');
    expect(readResponse(response(200, 'application/octet-stream', 'abcd'))).toBe(
      'Binary response (application/octet-stream, 4 bytes) not included',
    );
  });

  it('fails on a 2xx answer that is not the JSON it claims', () => {
    const error = thrown(() => readResponse(response(200, 'application/json', '{oops')));
    expect(error.code).toBe('execution_failed');
    expect(error.message).toContain('invalid JSON');
  });

  it('marks throttling and gateway failures retryable, with Retry-After', () => {
    const throttled = thrown(() =>
      readResponse(response(429, 'text/plain', 'slow down', { 'retry-after': '7' })),
    );
    expect(throttled).toMatchObject({
      code: 'execution_failed',
      retryable: true,
      message: 'HTTP 429 Too Many Requests: slow down',
    });
    expect(throttled.details).toEqual({ status: 429, body: 'slow down', retryAfter: '7' });
    expect(thrown(() => readResponse(response(502, 'text/html', '<h1>bad</h1>'))).retryable).toBe(true);
  });

  it('does not put binary error bodies in the message', () => {
    const error = thrown(() => readResponse(response(503, 'application/octet-stream', '\u0000\u0001')));
    expect(error.message).toBe('HTTP 503 Service Unavailable: (2 bytes of application/octet-stream)');
  });
});
