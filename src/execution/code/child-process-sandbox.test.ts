import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { detectSandboxEngine } from '../../foundation/sandbox/sandbox-engine.js';
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

const engine = detectSandboxEngine();

/** The command lines of this process's children. */
function childCommandLines(): string[][] {
  const found: string[][] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid) found.push(readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0'));
    } catch {
      // Gone.
    }
  }
  return found;
}

describe.skipIf(!engine.available)(
  `createChildProcessSandbox with osSandbox${engine.available ? '' : ` (skipped: ${engine.reason})`}`,
  () => {
    it('runs programs in runner processes started inside bubblewrap, without network', {
      timeout: 60_000,
    }, async () => {
      if (!engine.available) return;
      const sandbox = createChildProcessSandbox({
        poolSize: 1,
        osSandbox: { bwrap: engine.path, deny: ['/root/.ssh'] },
      });
      try {
        expect((await runCode(sandbox, 'return 6 * 7')).value).toBe(42);
        const runners = childCommandLines().filter((args) =>
          args.some((arg) => arg.includes('child-runner-entry')),
        );
        expect(runners.length).toBeGreaterThan(0);
        for (const args of runners) {
          expect(args[0]).toBe(engine.path);
          expect(args).toContain('--unshare-net');
          expect(args).toContain('--unshare-pid');
          expect(args).toContain('--die-with-parent');
        }
      } finally {
        await sandbox.close();
      }
    });
  },
);
