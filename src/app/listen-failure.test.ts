import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { listenFailure } from './listen-failure.js';

describe('listenFailure', () => {
  const withCode = (code: string) => Object.assign(new Error(`listen ${code}`), { code });

  it('makes a taken or forbidden port, or a foreign address, a one-line config_invalid naming the fix', () => {
    const taken = listenFailure(withCode('EADDRINUSE'), '127.0.0.1', 8282) as GatewayError;
    expect(taken).toBeInstanceOf(GatewayError);
    expect(taken.code).toBe('config_invalid');
    expect(taken.message).toBe('port 8282 is already in use; choose another with --port');
    expect((listenFailure(withCode('EACCES'), '127.0.0.1', 80) as GatewayError).message).toContain('--port');
    expect((listenFailure(withCode('EADDRNOTAVAIL'), '10.9.9.9', 80) as GatewayError).message).toContain(
      '--host',
    );
  });

  it('leaves any other failure as it was', () => {
    const other = withCode('EMFILE');
    expect(listenFailure(other, '127.0.0.1', 1)).toBe(other);
  });
});
