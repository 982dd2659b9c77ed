import { describe, expect, it } from 'vitest';
import { withDefaults } from './schema-defaults.js';

describe('withDefaults', () => {
  it('fills missing properties with their defaults, nested objects and arrays included', () => {
    const schema = {
      type: 'object',
      properties: {
        days: { type: 'integer', default: 3 },
        given: { type: 'string', default: 'x' },
        opts: { type: 'object', default: {}, properties: { loud: { type: 'boolean', default: false } } },
        list: { type: 'array', items: { type: 'object', properties: { n: { default: 1 } } } },
        point: { $ref: '#/$defs/point' },
      },
      allOf: [{ properties: { extra: { default: [1] } } }],
      $defs: { point: { type: 'object', default: { x: 0 }, properties: { y: { default: 0 } } } },
    };
    const args = { given: 'mine', list: [{}, { n: 5 }] };
    expect(withDefaults(schema, args)).toEqual({
      days: 3,
      given: 'mine',
      opts: { loud: false },
      list: [{ n: 1 }, { n: 5 }],
      point: { x: 0, y: 0 },
      extra: [1],
    });
    expect(args).toEqual({ given: 'mine', list: [{}, { n: 5 }] });
  });

  it('stops on recursive schemas and leaves values without defaults alone', () => {
    const tree = { type: 'object', properties: { child: { $ref: '#' }, name: { default: 'n' } } };
    expect(withDefaults(tree, { child: { child: {} } })).toEqual({
      name: 'n',
      child: { name: 'n', child: { name: 'n' } },
    });
    const loop = {
      $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
      properties: { v: { $ref: '#/$defs/a' } },
    };
    expect(withDefaults(loop, { v: 1 })).toEqual({ v: 1 });
    expect(withDefaults({ type: 'object' }, { a: 1 })).toEqual({ a: 1 });
  });
});
