import { describe, expect, it } from 'vitest';
import { parseConfigValue } from '../../config/load-config.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { MCP_DRIVER } from './mcp-driver.js';

describe('servers.<name>.startupTimeoutMs', () => {
  it('bounds one start of a server that never answers initialize', async () => {
    const { config } = parseConfigValue({
      servers: {
        mute: {
          command: process.execPath,
          args: ['-e', 'setInterval(() => {}, 1000)'],
          startupTimeoutMs: 300,
        },
      },
    });
    const entry = config.servers.mute;
    if (entry === undefined) throw new Error('no entry');
    await MCP_DRIVER.section.preload?.();
    const source = MCP_DRIVER.section.create('mute', entry, {
      baseDir: process.cwd(),
      log: silentLogger,
      clientInfo: { name: 'test', version: '1' },
      backoff: { minMs: 60_000, maxMs: 60_000 },
    });
    const started = Date.now();
    await source.start(() => []);
    const elapsed = Date.now() - started;
    const state = source.state();
    await source.stop();
    expect(state.lastError?.message).toContain('no answer to initialize within 300 ms');
    expect(elapsed).toBeLessThan(5_000);
  });
});
