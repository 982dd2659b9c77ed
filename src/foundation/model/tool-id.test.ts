import { describe, expect, it } from 'vitest';
import { GatewayError } from './gateway-error.js';
import { formatToolId, isValidToolName, parseToolId } from './tool-id.js';

describe('parseToolId / formatToolId', () => {
  it.each([
    ['plantuml:encode', { namespace: 'plantuml', name: 'encode' }],
    ['gh:create_issue:2', { namespace: 'gh', name: 'create_issue', version: '2' }],
    ['my.ns-1:do-it', { namespace: 'my.ns-1', name: 'do-it' }],
  ])('parses %s and formats it back', (id, parts) => {
    expect(parseToolId(id)).toEqual(parts);
    expect(formatToolId(parseToolId(id))).toBe(id);
  });

  it.each(['', 'noseparator', ':name', 'ns:', 'a:b:c:d', 'ns:has space', '-ns:x'])(
    'rejects %j with tool_not_found',
    (id) => {
      const error = (() => {
        try {
          parseToolId(id);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('tool_not_found');
    },
  );
});

describe('isValidToolName', () => {
  it('refuses control, zero-width and bidirectional characters, and keeps other scripts', () => {
    for (const name of [
      'echo\u001b[31m',
      'ec\u0007ho',
      'x\u009by',
      'zero\u200bwidth',
      'join\u200dme',
      'bom\ufeff',
      'rtl\u202eexe',
      'iso\u2066late',
      'soft\u00adhyphen',
      'word\u2060joiner',
    ]) {
      expect(isValidToolName(name), JSON.stringify(name)).toBe(false);
      expect(() => parseToolId(`ns:${name}`)).toThrow(GatewayError);
    }
    for (const name of ['echo', 'créer_fiche', 'поиск', '検索', 'emoji🙂', 'a.b-c_d']) {
      expect(isValidToolName(name), name).toBe(true);
    }
  });
});
