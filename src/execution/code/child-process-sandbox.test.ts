import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { createChildProcessSandbox } from './child-process-sandbox.js';
import { runCode } from './sandbox.contract.js';

describe('createChildProcessSandbox', () => {
  it('runs each program in a fresh process by default', async () => {
    const sandbox = createChildProcessSandbox();
    try {
      const sequential = [];
      for (let i = 0; i < 2; i++) sequential.push((await runCode(sandbox, `return ${i}`)).value);
      const concurrent = await Promise.all([1, 2, 3].map((n) => runCode(sandbox, `return ${n}`)));
      expect(sequential).toEqual([0, 1]);
      expect(concurrent.map((o) => o.value)).toEqual([1, 2, 3]);
    } finally {
      await sandbox.close();
    }
  });

  it('validates its options at once', () => {
    expect(() => createChildProcessSandbox({ maxRunsPerProcess: 0 })).toThrow(GatewayError);
    expect(() => createChildProcessSandbox({ heapMb: 1 })).toThrow(/heapMb/);
  });
});
