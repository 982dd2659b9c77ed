import { afterAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { createQuickJsSandbox } from './quickjs-sandbox.js';
import { failureOf, runCode } from './sandbox.contract.js';

describe('createQuickJsSandbox', () => {
  const sandbox = createQuickJsSandbox({ poolSize: 2 });
  afterAll(() => sandbox.close());

  it('answers other runs while one program spins', async () => {
    await Promise.all([runCode(sandbox, 'return 1'), runCode(sandbox, 'return 1')]);
    const spinning = failureOf(runCode(sandbox, 'while (true) {}', { limits: { timeoutMs: 1500 } }));
    const started = Date.now();
    expect((await runCode(sandbox, 'return 2')).value).toBe(2);
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await spinning).code).toBe('timeout');
  });

  it('sizes memory per run: a bomb under a small limit, then a large allocation under a large one', async () => {
    const bomb = await failureOf(
      runCode(sandbox, 'const a = [];\nfor (;;) a.push(new Array(1e5).fill(1))', { limits: { memoryMb: 8 } }),
    );
    expect(bomb.details).toEqual({ limit: 'memory_mb' });
    const big = await runCode(sandbox, 'return new Array(4e6).fill(1).length', { limits: { memoryMb: 96 } });
    expect(big.value).toBe(4e6);
  });

  it('names the nearest tools when the program calls one that does not exist', async () => {
    const wrongName = await failureOf(runCode(sandbox, 'return await tools.ns.ecko({})'));
    expect(wrongName.message).toContain('tools.ns.ecko is not a tool');
    expect(wrongName.message).toContain('"echo"');
    expect(wrongName.message).toContain('tools.call("ns:echo", args)');
    const wrongNamespace = await failureOf(runCode(sandbox, 'return await tools.nss.echo({})'));
    expect(wrongNamespace.message).toContain('tools.nss is not a namespace of the catalog');
    expect(wrongNamespace.message).toContain('"ns"');
    // Feature checks still see undefined, and stay silent.
    expect((await runCode(sandbox, 'return typeof tools.ns.ecko')).value).toBe('undefined');
  });

  it('validates its options at once', () => {
    expect(() => createQuickJsSandbox({ poolSize: 0 })).toThrow(GatewayError);
    expect(() => createQuickJsSandbox({ maxQueue: -1 })).toThrow(/maxQueue/);
  });
});
