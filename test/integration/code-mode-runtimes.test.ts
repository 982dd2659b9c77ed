import { describe, expect, it } from 'vitest';
import { gatewayFrom } from '../support/in-process-gateway.js';

/** Both sandbox runtimes, chosen by config, run the same program against the built-in tools. */
describe.each(['quickjs', 'process'] as const)('code mode with runtime %s', (runtime) => {
  it('runs a program that calls a built-in tool', async () => {
    const gateway = await gatewayFrom({ codeMode: { runtime, poolSize: 1, maxRunsPerProcess: 5 } });
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
    const gateway = await gatewayFrom({ codeMode: { enabled: false } });
    expect(gateway.code).toBeUndefined();
    await gateway.close();
  });
});
