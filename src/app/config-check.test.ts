// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the configs reference ${secret:…} on purpose.
import { describe, expect, it } from 'vitest';
import { checkConfigText } from './config-check.js';

describe('checkConfigText', () => {
  it('accepts a valid config, secrets and all', () => {
    expect(
      checkConfigText(
        'server: { port: 9000 }\nservers:\n  a: { url: "http://127.0.0.1:1/mcp", headers: { X: "${secret:T}" } }\n',
      ),
    ).toMatchObject({ valid: true });
  });

  it('names the bad key, with a did-you-mean, as config validate does', () => {
    const check = checkConfigText('server: { prot: 9000 }\n');
    expect(check.valid).toBe(false);
    if (check.valid) return;
    expect(check.error.code).toBe('config_invalid');
    expect(check.error.message).toMatch(/server.*prot/);
  });

  it('reports a syntax error with its line', () => {
    const check = checkConfigText('server: [\n');
    expect(check).toMatchObject({ valid: false, error: { code: 'config_invalid' } });
  });

  it('reads JSON when told so', () => {
    expect(checkConfigText('{"server": {"port": 1}}', 'json')).toMatchObject({ valid: true });
    expect(checkConfigText('{"server": ', 'json')).toMatchObject({ valid: false });
  });
});
