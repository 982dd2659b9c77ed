import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { detectSandboxEngine } from '../../foundation/sandbox/sandbox-engine.js';
import { sandboxedStart } from './sandboxed-start.js';
import { isPermanentFailure } from './spawn-failure.js';

const request = { command: 'node', args: ['server.js'], env: { KEY: 'v' } };

describe('sandboxedStart', () => {
  it('leaves the start unchanged when sandboxing is off or unavailable (not required)', async () => {
    expect(await sandboxedStart(undefined, request, silentLogger)).toEqual({});
    expect(await sandboxedStart({ kind: 'off' }, request, silentLogger)).toEqual({});
    expect(await sandboxedStart({ kind: 'unconfined', reason: 'no bwrap' }, request, silentLogger)).toEqual(
      {},
    );
  });

  it('refuses a required sandbox without an engine: backend_unavailable, permanent, naming the reason', async () => {
    const failure = await sandboxedStart(
      { kind: 'refused', reason: 'servers.x.sandbox is "required" but no sandbox engine is available: …' },
      request,
      silentLogger,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('backend_unavailable');
    expect((failure as GatewayError).message).toMatch(/servers\.x\.sandbox is "required"/);
    expect(isPermanentFailure(failure)).toBeDefined();
  });

  const engine = detectSandboxEngine();
  it.skipIf(!engine.available)(
    'reports a command missing on the host as spawn would (command not found)',
    async () => {
      if (!engine.available) return;
      const profile = {
        label: 'x',
        bwrap: engine.path,
        scratchDir: `/tmp/aperture-sandboxed-start-${process.pid}`,
        writable: [],
        deny: [],
        network: { mode: 'open' as const },
      };
      const failure = await sandboxedStart(
        { kind: 'sandboxed', profile },
        { ...request, command: 'no-such-command-4711' },
        silentLogger,
      ).catch((error: unknown) => error);
      expect((failure as GatewayError).message).toMatch(
        /cannot start "no-such-command-4711": command not found/,
      );
    },
  );
});
