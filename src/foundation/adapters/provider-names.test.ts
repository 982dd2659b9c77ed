import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import { buildNameMap, PROVIDER_NAME_PATTERN, providerToolName } from './provider-names.js';

const tool = (id: string) => {
  const [namespace = '', name = ''] = id.split(':');
  return { id, namespace, name };
};

describe('buildNameMap', () => {
  it('names a tool namespace__name when that is already valid', () => {
    const map = buildNameMap([tool('time:now'), tool('plantuml:encode')]);
    expect(map.toName('time:now')).toBe('time__now');
    expect(map.toId('plantuml__encode')).toBe('plantuml:encode');
    expect(map.toId('nope__nope')).toBeUndefined();
  });

  it('suffixes every member of a collision with a hash of its id, whatever the order', () => {
    // Both flatten to a__b__c; so do two versions of one tool.
    const tools = [tool('a__b:c'), tool('a:b__c'), tool('files:read'), tool('files:read:2'), tool('x:y')];
    const map = buildNameMap(tools);
    const reversed = buildNameMap([...tools].reverse());
    const names = tools.map((t) => map.toName(t.id));
    expect(new Set(names).size).toBe(tools.length);
    expect(names[0]).toMatch(/^a__b__c_[0-9a-f]{8}$/);
    expect(names[2]).toMatch(/^files__read_[0-9a-f]{8}$/);
    expect(names[4]).toBe('x__y');
    for (const t of tools) {
      expect(reversed.toName(t.id)).toBe(map.toName(t.id));
      expect(map.toId(map.toName(t.id))).toBe(t.id);
    }
  });

  it('keeps a suffixed name from colliding with a tool that already has that exact name', () => {
    const first = buildNameMap([tool('a:b'), tool('a:b:2')]).toName('a:b');
    const squatter = { id: 'a:squat', namespace: 'a', name: first.slice(3) };
    const map = buildNameMap([tool('a:b'), tool('a:b:2'), squatter]);
    const names = ['a:b', 'a:b:2', 'a:squat'].map((id) => map.toName(id));
    expect(new Set(names).size).toBe(3);
    for (const id of ['a:b', 'a:b:2', 'a:squat']) expect(map.toId(map.toName(id))).toBe(id);
  });

  it('shortens long names to 64 characters, distinct and reversible', () => {
    const long = 'x'.repeat(100);
    const tools = [tool(`ns:${long}a`), tool(`ns:${long}b`), tool(`${'n'.repeat(60)}:tool`)];
    const map = buildNameMap(tools);
    const names = tools.map((t) => map.toName(t.id));
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(64);
      expect(name).toMatch(PROVIDER_NAME_PATTERN);
    }
    expect(new Set(names).size).toBe(3);
    for (const t of tools) expect(map.toId(map.toName(t.id))).toBe(t.id);
  });

  it('maps non-ASCII and punctuation to valid names that stay distinct', () => {
    const tools = [
      tool('i18n:résumé'),
      tool('i18n:resume'),
      tool('i18n:r_sum_'),
      tool('i18n:日本語'),
      tool('i18n:a.b'),
    ];
    const map = buildNameMap(tools);
    const names = tools.map((t) => map.toName(t.id));
    for (const name of names) expect(name).toMatch(PROVIDER_NAME_PATTERN);
    expect(new Set(names).size).toBe(tools.length);
    expect(map.toName('i18n:resume')).toBe('i18n__resume');
    expect(map.toName('i18n:résumé')).toMatch(/^i18n__r_sum__[0-9a-f]{8}$/);
  });

  it('starts every name with a letter or underscore (Gemini), even for a namespace starting with a digit', () => {
    const map = buildNameMap([tool('1password:get'), tool(`9${'z'.repeat(63)}:get`)]);
    expect(map.toName('1password:get')).toBe('_1password__get');
    expect(map.toName(`9${'z'.repeat(63)}:get`)).toMatch(PROVIDER_NAME_PATTERN);
  });

  it('is deterministic and refuses ids outside its list', () => {
    expect(buildNameMap([tool('a:b')]).toName('a:b')).toBe(buildNameMap([tool('a:b')]).toName('a:b'));
    expect(() => buildNameMap([tool('a:b')]).toName('c:d')).toThrow(GatewayError);
    expect(providerToolName(tool('time:now'))).toBe('time__now');
  });
});
