import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { createLogger } from './create-logger.js';

const SECRET = 'tok-9f8e7d6c5b4a';

/** A logger writing into an array of parsed lines. */
function captured(mask?: readonly string[]) {
  const raw: string[] = [];
  const log = createLogger({
    level: 'debug',
    mask,
    destination: { write: (line: string) => raw.push(line) },
  });
  return { log, raw, lines: () => raw.map((line) => JSON.parse(line) as Record<string, any>) };
}

describe('createLogger', () => {
  it('writes JSON lines at the level asked for, tagged with the app', () => {
    const { log, lines } = captured();
    log.debug({ n: 1 }, 'hello');
    expect(lines()).toEqual([expect.objectContaining({ level: 20, app: 'aperture', n: 1, msg: 'hello' })]);
  });

  it('masks a secret value in a message, in a nested field and in an error', () => {
    const { log, raw, lines } = captured([SECRET]);
    log.info({}, `connecting with Bearer ${SECRET}`);
    log.warn({ request: { headers: { 'x-other': `v=${SECRET};` } }, list: [SECRET] }, 'nested');
    log.error({ err: new Error(`upstream echoed ${SECRET}`) }, 'failed');
    log.error({ err: new GatewayError('execution_failed', 'x', { details: { echo: SECRET } }) }, 'gw');
    log.child({ binding: SECRET }).info({}, 'child');
    expect(raw.join('')).not.toContain(SECRET);
    const [message, nested, error, gatewayError, child] = lines();
    expect(message?.msg).toBe('connecting with Bearer [REDACTED]');
    expect(nested?.request.headers['x-other']).toBe('v=[REDACTED];');
    expect(nested?.list).toEqual(['[REDACTED]']);
    expect(error?.err.message).toBe('upstream echoed [REDACTED]');
    expect(error?.err.stack).toContain('upstream echoed [REDACTED]');
    expect(JSON.stringify(gatewayError)).toContain('[REDACTED]');
    expect(child?.binding).toBe('[REDACTED]');
  });

  it('redacts sensitive keys at any depth and in any case, without a mask', () => {
    const { log, lines } = captured();
    log.info(
      {
        tool: 'github:create_issue',
        args: {
          title: 'bug',
          options: { Access_Token: 'a1', deeper: { CLIENT_SECRET: 'c1' } },
          auth: { user: 'u' },
        },
        headers: { Authorization: 'Bearer z', 'set-cookie': ['a', 'b'] },
        Api_Key: 'k',
      },
      'run',
    );
    const [entry] = lines();
    expect(entry?.args).toEqual({
      title: 'bug',
      options: { Access_Token: '[REDACTED]', deeper: { CLIENT_SECRET: '[REDACTED]' } },
      // `auth` is a credential name under the shared rule, whatever it holds.
      auth: '[REDACTED]',
    });
    expect(entry?.headers).toEqual({ Authorization: '[REDACTED]', 'set-cookie': '[REDACTED]' });
    expect(entry?.Api_Key).toBe('[REDACTED]');
    expect(entry?.tool).toBe('github:create_issue');
  });

  it('logs nothing below its level', () => {
    const { log, raw } = captured();
    const quiet = createLogger({ level: 'warn', destination: { write: (line: string) => raw.push(line) } });
    quiet.info({}, 'dropped');
    log.debug({}, 'kept');
    expect(raw).toHaveLength(1);
  });
});

describe('createLogger format pretty', () => {
  it('writes readable lines, masked like the JSON ones', () => {
    const raw: string[] = [];
    const log = createLogger({
      level: 'info',
      mask: [SECRET],
      format: 'pretty',
      destination: { write: (line: string) => raw.push(line) },
    });
    log.child({ component: 'http' }).warn({ token: 'x', header: `Bearer ${SECRET}` }, 'refused');
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[http\] refused token=\[REDACTED\] header="Bearer \[REDACTED\]"\n$/,
    );
  });
});
