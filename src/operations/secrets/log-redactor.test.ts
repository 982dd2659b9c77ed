import { describe, expect, it } from 'vitest';
import { REDACTED as ARGS_REDACTED, isSensitiveKey } from '../observe/redact-args.js';
import { createLogRedactor, REDACTED } from './log-redactor.js';

const line = (value: object): string => `${JSON.stringify(value)}\n`;

describe('createLogRedactor', () => {
  it('leaves a line without secrets or sensitive keys as it is (the same string)', () => {
    const redact = createLogRedactor(['s3cr3t-value']);
    const input = line({ level: 30, msg: 'hello', tokens: 3, maxTokens: 5, tokenizer: 'x' });
    expect(redact(input)).toBe(input);
  });

  it('masks secret values in messages, nested fields and array items', () => {
    const redact = createLogRedactor(['s3cr3t-value']);
    const out = redact(
      line({ msg: 'sent s3cr3t-value', a: { b: ['x s3cr3t-value y', { c: 's3cr3t-value' }] } }),
    );
    expect(out).not.toContain('s3cr3t-value');
    expect(JSON.parse(out)).toEqual({
      msg: `sent ${REDACTED}`,
      a: { b: [`x ${REDACTED} y`, { c: REDACTED }] },
    });
  });

  it('masks values as they appear JSON-escaped, and longer secrets whole', () => {
    const redact = createLogRedactor(['quote"and\\slash', 'line1\nline2', 'abcd', 'abcdefgh']);
    const out = redact(line({ a: 'x quote"and\\slash y', b: 'line1\nline2', c: 'abcdefgh' }));
    expect(JSON.parse(out)).toEqual({ a: `x ${REDACTED} y`, b: REDACTED, c: REDACTED });
  });

  it('ignores empty mask values (they would match everywhere)', () => {
    const input = line({ msg: 'hello' });
    expect(createLogRedactor([''])(input)).toBe(input);
  });

  it('follows the same key rule as the call log (one rule: names ending in a credential word)', () => {
    const redact = createLogRedactor();
    const keys = [
      'github_token',
      'githubToken',
      'db_password',
      'aws_secret_access_key',
      'X-Vendor-Api-Key',
      'max_tokens',
    ];
    const input = Object.fromEntries(keys.map((key) => [key, 'value-1234']));
    const out = JSON.parse(redact(line({ msg: 'm', fields: input }))) as { fields: Record<string, string> };
    for (const key of keys) {
      expect(out.fields[key], key).toBe(isSensitiveKey(key) ? REDACTED : 'value-1234');
    }
    expect(out.fields.github_token).toBe(REDACTED);
    expect(out.fields.max_tokens).toBe('value-1234');
    expect(ARGS_REDACTED).toBe(REDACTED);
  });

  it('censors sensitive keys at any depth, in any case, whatever their value', () => {
    const redact = createLogRedactor();
    const out = redact(
      line({
        msg: 'call',
        args: {
          query: 'ok',
          API_KEY: 'k1',
          nested: { deeper: [{ Password: 'p1', 'Set-Cookie': 'c' }] },
          Authorization: { scheme: 'Bearer', value: 'x' },
          access_token: 42,
        },
        headers: { 'X-Api-Key': 'k2', cookie: 'a=b' },
      }),
    );
    expect(JSON.parse(out)).toEqual({
      msg: 'call',
      args: {
        query: 'ok',
        API_KEY: REDACTED,
        nested: { deeper: [{ Password: REDACTED, 'Set-Cookie': REDACTED }] },
        Authorization: REDACTED,
        access_token: REDACTED,
      },
      headers: { 'X-Api-Key': REDACTED, cookie: REDACTED },
    });
    expect(out.endsWith('\n')).toBe(true);
  });

  it('does not touch a message that merely mentions a key', () => {
    const input = line({ msg: 'the "token": field is required' });
    expect(JSON.parse(createLogRedactor()(input))).toEqual({ msg: 'the "token": field is required' });
  });
});
