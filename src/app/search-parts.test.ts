import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigValue } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { openSearchBacking } from './search-parts.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-search-parts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const configWith = (search: Record<string, unknown>) => parseConfigValue({ search }).config;

describe('openSearchBacking', () => {
  it('gives an embedder only to strategies that rank with vectors', async () => {
    for (const [strategy, model] of [
      ['bm25', undefined],
      ['lexical', undefined],
      ['semantic', 'use-lite'],
      ['hybrid', 'use-lite'],
    ] as const) {
      const backing = openSearchBacking(configWith({ strategy }), dir, { stateDir: dir, log: silentLogger });
      expect(backing.embedder?.model).toBe(model);
      await backing.close();
    }
  });

  it('lets the caller override the configured strategy (eval --strategy)', async () => {
    const backing = openSearchBacking(configWith({ strategy: 'bm25' }), dir, {
      strategy: 'hybrid',
      stateDir: dir,
      log: silentLogger,
    });
    expect(backing.embedder?.model).toBe('use-lite');
    await backing.close();
  });

  it('keeps the state in the chosen state directory', async () => {
    const backing = openSearchBacking(configWith({}), dir, { stateDir: dir, log: silentLogger });
    backing.state.set('scope', 'key', { n: 1 });
    await backing.close();
    expect((await readdir(dir)).length).toBeGreaterThan(0);
  });

  it('refuses a missing model folder with config_invalid before any state store is opened', () => {
    const stateDir = path.join(dir, 'state');
    const config = configWith({ strategy: 'hybrid', embedder: { provider: 'onnx', path: 'no-such-model' } });
    let failure: unknown;
    try {
      openSearchBacking(config, dir, { stateDir, log: silentLogger });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('config_invalid');
    expect((failure as GatewayError).details).toMatchObject({ path: 'search.embedder.path' });
    expect(existsSync(stateDir)).toBe(false);
  });
});
