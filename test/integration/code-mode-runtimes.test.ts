import { describe, expect, it } from 'vitest';
import { Gateway } from '../../src/app/gateway.js';
import { parseConfigValue } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/foundation/logger.js';

/** Both sandbox runtimes, chosen by config, run the same program against the built-in tools. */
describe.each(['quickjs', 'process'] as const)('code mode with runtime %s', (runtime) => {
  it('runs a program that calls a built-in tool', async () => {
    const { config } = parseConfigValue({ codeMode: { runtime, poolSize: 1, maxRunsPerProcess: 5 } });
    const gateway = await Gateway.create({
      loaded: { config, baseDir: process.cwd(), warnings: [] },
      log: silentLogger,
    });
    try {
      const result = await gateway.code?.execute(
        gateway.scope,
        { code: `const r = await tools.text.stats({ text: 'One two. Three.' }); return r.words;` },
        { caller: { identity: 'test' } },
      );
      expect(result?.value).toBe(3);
      expect(result?.toolCalls).toEqual([expect.objectContaining({ tool_id: 'text:stats', ok: true })]);
    } finally {
      await gateway.close();
    }
  });
});

describe('code mode disabled', () => {
  it('has no executor', async () => {
    const { config } = parseConfigValue({ codeMode: { enabled: false } });
    const gateway = await Gateway.create({
      loaded: { config, baseDir: process.cwd(), warnings: [] },
      log: silentLogger,
    });
    expect(gateway.code).toBeUndefined();
    await gateway.close();
  });
});
