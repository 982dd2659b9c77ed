import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { parseHostParams } from './host-calls.js';
import type { HostMethod } from './sandbox.js';

describe('parseHostParams', () => {
  it.each<[HostMethod, string, unknown]>([
    ['tools.call', '{"id":"a:b","args":{"x":1}}', { id: 'a:b', args: { x: 1 } }],
    ['tools.call', '{"id":"a:b"}', { id: 'a:b', args: {} }],
    ['tools.search', '{"query":"q"}', { query: 'q', options: {} }],
    ['tools.search', '{"query":"q","options":{"limit":2}}', { query: 'q', options: { limit: 2 } }],
    ['tools.describe', '{"id":"a:b","extra":1}', { id: 'a:b' }],
  ])('accepts %s %s', (method, text, expected) => {
    expect(parseHostParams(method, text)).toEqual(expected);
  });

  it.each<[HostMethod, string]>([
    ['tools.call', 'not json'],
    ['tools.call', '[]'],
    ['tools.call', '{"id":""}'],
    ['tools.call', '{"id":1}'],
    ['tools.search', '{"query":null}'],
    ['tools.search', '{"query":"q","options":[1]}'],
    ['tools.describe', '{}'],
  ])('rejects %s %s as invalid_request', (method, text) => {
    let error: unknown;
    try {
      parseHostParams(method, text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
  });

  it('keeps a __proto__ key as plain data', () => {
    const params = parseHostParams('tools.call', '{"id":"a:b","args":{"__proto__":{"polluted":true}}}');
    expect(Object.getPrototypeOf(params.args)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
