import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkConfigText } from './config-check.js';

// Regression: `POST /api/admin/config/validate` resolved `${env:NAME}` and echoed the value in its
// errors, so an admin could read any variable of the gateway's environment (other keys, the token key).
const LEAK = 'tok-9d2f7c41-distinctive-value';
const LONG_LEAK = `sk-live-${'7c41e0'.repeat(12)}`; // longer than the 40 characters an error quotes
const REF = ['$', '{env:APERTURE_TEST_LEAK}'].join('');
const LONG_REF = ['$', '{env:APERTURE_TEST_LONG_LEAK}'].join('');

describe('checkConfigText never echoes a resolved environment value', () => {
  beforeEach(() => {
    process.env.APERTURE_TEST_LEAK = LEAK;
    process.env.APERTURE_TEST_LONG_LEAK = LONG_LEAK;
  });
  afterEach(() => {
    delete process.env.APERTURE_TEST_LEAK;
    delete process.env.APERTURE_TEST_LONG_LEAK;
  });

  it.each([
    ['a number', `server:\n  port: ${REF}\n`],
    ['an enum', `exposure:\n  mode: ${REF}\n`],
    ['a URL', `servers:\n  x:\n    url: "${REF}"\n`],
    ['a long value, quoted cut short', `server:\n  port: ${LONG_REF}\n`],
    ['part of a string', `server:\n  port: "80 ${REF}"\n`],
  ])('where the value is not %s', (_kind, text) => {
    const answer = checkConfigText(text);
    const json = JSON.stringify(answer);
    expect(answer.valid).toBe(false);
    expect(json).not.toContain('9d2f7c41');
    expect(json).not.toContain('7c41e0');
  });

  it('still names the offending key, and says a value was withheld', () => {
    const answer = checkConfigText(`server:\n  port: ${REF}\n`);
    expect(answer).toMatchObject({
      valid: false,
      error: { code: 'config_invalid', message: expect.stringContaining('server.port') },
    });
    expect(JSON.stringify(answer)).toContain('[REDACTED]');
  });
});
