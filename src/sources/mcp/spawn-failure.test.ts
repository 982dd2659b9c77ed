import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { ConnectionSupervisor } from './connection-supervisor.js';

describe('a server whose command does not exist', () => {
  it('fails once with a reason naming the command, is not retried, and reconnect tries again', async () => {
    const command = '/nonexistent/aperture-test-server';
    const supervisor = new ConnectionSupervisor({
      name: 'gone',
      sourceId: 'mcp:gone',
      target: { kind: 'stdio', command, args: [], env: {} },
      clientInfo: { name: 'test', version: '1' },
      log: silentLogger,
      backoff: { minMs: 5, maxMs: 10 },
      capabilities: {},
      prepare: () => {},
      establish: async () => {},
      up: () => {},
      down: () => {},
    });
    await supervisor.firstAttempt;
    // With a 5 ms backoff, a retried failure would have been tried dozens of times by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const status = supervisor.snapshot();
    expect(status.state).toBe('failed');
    expect(status.failures).toBe(1);
    expect(status.lastError?.message).toBe(
      `cannot start "${command}": command not found (not installed, or not on the gateway's PATH)`,
    );
    await supervisor.reconnect();
    expect(supervisor.snapshot().failures).toBe(2);
    await supervisor.stop();
  });
});
