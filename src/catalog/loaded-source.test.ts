import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { LoadedSource } from './loaded-source.js';
import { runSourceContract } from './source.contract.js';

runSourceContract('LoadedSource', async () => ({
  source: new LoadedSource(
    'openapi:pets',
    'openapi',
    async () => [makeEntry(makeTool('pets:list')), makeEntry(makeTool('pets:get'))],
    silentLogger,
  ),
  ids: ['pets:list', 'pets:get'],
}));

describe('LoadedSource', () => {
  it('settles as failed with the error code and message when the load fails, publishing nothing', async () => {
    const errors: unknown[] = [];
    const log = { ...silentLogger, error: (obj: object) => void errors.push(obj) };
    const load = async () => {
      throw new GatewayError('backend_unavailable', 'connect ECONNREFUSED 127.0.0.1:9');
    };
    const source = new LoadedSource('a2a:gone', 'a2a', load, log);
    const published: unknown[] = [];
    const publish = (entries: unknown) => {
      published.push(entries);
      return [];
    };
    await expect(source.start(publish)).resolves.toBeUndefined();
    expect(published).toEqual([]);
    expect(source.state()).toEqual({
      state: 'failed',
      tools: 0,
      lastError: { code: 'backend_unavailable', message: 'connect ECONNREFUSED 127.0.0.1:9' },
    });
    expect(errors).toEqual([
      { source: 'a2a:gone', code: 'backend_unavailable', err: 'connect ECONNREFUSED 127.0.0.1:9' },
    ]);
  });

  it('normalises a non-GatewayError failure (a server fault, not the caller)', async () => {
    const source = new LoadedSource(
      'openapi:x',
      'openapi',
      async () => {
        throw new TypeError('boom');
      },
      silentLogger,
    );
    await source.start(() => []);
    expect(source.state().lastError?.code).toBe('internal');
  });
});
