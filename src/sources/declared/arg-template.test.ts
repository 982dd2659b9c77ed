import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { checkTemplateNames, renderText, renderValue, templateUses } from './arg-template.js';

describe('argument templates', () => {
  it('finds every placeholder with the key that holds it, and leaves other braces alone', () => {
    expect(templateUses({ a: 'x {id} {json: 1}', b: ['{n}', 'k'] }, 'body')).toEqual([
      { name: 'id', key: 'body.a' },
      { name: 'n', key: 'body.b[0]' },
    ]);
  });

  it('renders text (encoded as asked) and values (exact placeholders keep their type, absent ones drop)', () => {
    expect(renderText('/u/{id}', { id: 'a b/c' }, encodeURIComponent)).toBe('/u/a%20b%2Fc');
    expect(
      renderValue({ id: '{id}', note: 'n={id}', gone: '{missing}', list: ['{missing}'] }, { id: 7 }),
    ).toEqual({
      id: 7,
      note: 'n=7',
      list: [null],
    });
  });

  it('refuses a template naming an unknown argument, naming the key', () => {
    const uses = templateUses({ url: '/u/{idd}' }, 'x');
    let error: unknown;
    try {
      checkTemplateNames(uses, new Set(['id']), 'endpoints.get');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('config_invalid');
    expect((error as GatewayError).message).toContain('endpoints.get.x.url');
    expect((error as GatewayError).message).toContain('{idd}');
  });
});
