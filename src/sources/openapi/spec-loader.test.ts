import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { NetworkGuard } from '../net/network-guard.js';
import type { HttpClient } from './http-client.js';
import { loadSpec } from './spec-loader.js';

describe('loadSpec errors', () => {
  it("prefixes a guard's refusal with the spec and keeps its retryability and hint", async () => {
    // backend_unavailable is retryable by default: this guard says retrying will not help.
    const refusal = new GatewayError('backend_unavailable', 'Host "api.test" has no address', {
      retryable: false,
      details: { host: 'api.test' },
      hint: 'find_tool',
    });
    const guard = {
      check: async () => {
        throw refusal;
      },
    } as unknown as NetworkGuard;
    const client = {} as HttpClient;
    const spec = 'https://api.test/openapi.json';
    const error = await loadSpec(spec, { baseDir: '/', guard, client }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      code: 'backend_unavailable',
      message: `OpenAPI spec ${spec}: Host "api.test" has no address`,
      retryable: false,
      hint: 'find_tool',
      details: { host: 'api.test', spec },
    });
    expect((error as GatewayError).cause).toBe(refusal);
  });
});
