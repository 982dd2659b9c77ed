import { describe, expect, it } from 'vitest';
import { inlineMovedRefs, localRefPointer, mapRefs, refsOf } from './schema-refs.js';

describe('localRefPointer', () => {
  const schema = {
    properties: { a: { type: 'string' }, 'x/y': { type: 'number' } },
    $defs: { pin: { $anchor: 'pin', type: 'boolean' } },
    default: { $anchor: 'data' },
  };

  it('answers the pointer of #, JSON Pointers (escaped or percent-encoded) and anchors', () => {
    expect(localRefPointer(schema, '#')).toBe('');
    expect(localRefPointer(schema, '#/properties/a')).toBe('/properties/a');
    expect(localRefPointer(schema, '#/properties/x~1y')).toBe('/properties/x~1y');
    expect(localRefPointer(schema, '#/%24defs/pin')).toBe('/$defs/pin');
    expect(localRefPointer(schema, '#pin')).toBe('/$defs/pin');
  });

  it('answers undefined for a pointer to nothing, an anchor in data, and another document', () => {
    expect(localRefPointer(schema, '#/properties/b')).toBeUndefined();
    expect(localRefPointer(schema, '#data')).toBeUndefined();
    expect(localRefPointer(schema, 'other.json#/a')).toBeUndefined();
    expect(localRefPointer(schema, 'https://example.test/s.json')).toBeUndefined();
  });
});

describe('mapRefs', () => {
  it('maps references in schema positions only: never in data, and a property named $ref is a schema', () => {
    const schema = {
      properties: { $ref: { $ref: '#/$defs/a' }, b: { const: { $ref: '#/x' }, default: { $ref: '#/y' } } },
      items: [{ $ref: '#/$defs/a' }],
    };
    const mapped = mapRefs(schema, (ref) => (ref === '#/$defs/a' ? '#/moved' : undefined)) as any;
    expect(mapped.properties.$ref).toEqual({ $ref: '#/moved' });
    expect(mapped.items).toEqual([{ $ref: '#/moved' }]);
    expect(mapped.properties.b).toEqual({ const: { $ref: '#/x' }, default: { $ref: '#/y' } });
    expect(refsOf(schema)).toEqual(['#/$defs/a', '#/$defs/a']);
  });
});

describe('inlineMovedRefs', () => {
  it('inlines a reference into a moved part, keeps one that still holds, and stops at recursion', () => {
    const original = {
      anyOf: [{ properties: { a: { type: 'string' }, self: { $ref: '#/anyOf/0' } } }],
      properties: { keep: { $ref: '#/$defs/k' }, root: { $ref: '#' } },
      $defs: { k: { type: 'integer' } },
    };
    const moved = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        self: { $ref: '#/anyOf/0' },
        keep: { $ref: '#/$defs/k' },
        root: { $ref: '#' },
      },
      $defs: { k: { type: 'integer' } },
    };
    const out = inlineMovedRefs(original, moved) as any;
    expect(out.properties.keep).toEqual({ $ref: '#/$defs/k' });
    expect(out.properties.root).toEqual({ $ref: '#' });
    // `#/anyOf/0` is gone from the moved schema: inlined once, its own recursion cut.
    expect(out.properties.self.properties.a).toEqual({ type: 'string' });
    expect(out.properties.self.properties.self).toEqual({});
  });
});
