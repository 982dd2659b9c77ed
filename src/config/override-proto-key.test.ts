import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';

// Regression ("Hardening, round two"): a `__proto__` key in a schema patch was dropped without a
// word at load, or (deeper down) replaced a prototype when the patch applied, and the reload
// reported success either way.
describe('a schema patch with a __proto__ key', () => {
  it.each([
    ['yaml', 'overrides:\n  "fs:read":\n    inputSchema:\n      __proto__: { type: array }\n'],
    ['json', '{"overrides":{"fs:read":{"outputSchema":{"__proto__":{"polluted":true}}}}}'],
  ] as const)('is refused at the top of the patch (%s), naming the key', (format, text) => {
    expect(() => parseConfigText(text, format)).toThrow(
      expect.objectContaining({ code: 'config_invalid', message: expect.stringMatching(/__proto__/) }),
    );
  });

  it('is kept as a property name deeper down, where a JSON Schema may use it', () => {
    const text = '{"overrides":{"fs:read":{"inputSchema":{"properties":{"__proto__":{"type":"string"}}}}}}';
    const { config } = parseConfigText(text, 'json');
    const patch = config.overrides['fs:read']?.inputSchema as { properties: object };
    expect(Object.getOwnPropertyDescriptor(patch.properties, '__proto__')?.value).toEqual({ type: 'string' });
  });
});
