import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { callAudit } from './call-audit.js';
import { MemoryAuditTrail } from './memory-audit-trail.js';

const call: RunCall = {
  tool: { id: 'repo:write' } as Tool,
  args: { repo: 'acme/site', apiKey: 'k-123' },
  ctx: {
    signal: new AbortController().signal,
    callId: 'c1',
    caller: { identity: 'ka', authMethod: 'api_key', surface: 'rest' },
    progress: () => {},
    log: silentLogger,
  },
};

describe('callAudit', () => {
  it('records each call once it ended: who, what, where, the outcome and the redacted arguments', async () => {
    const trail = new MemoryAuditTrail();
    const audit = callAudit({ trail, enabled: () => true });
    await audit(call, async () => ({ content: [] }));
    await audit(call, async () => ({ content: [], isError: true }));
    await expect(
      audit(call, async () => {
        throw new GatewayError('rate_limited', 'slow down');
      }),
    ).rejects.toThrow('slow down');
    const lines = trail.lines.map((line) => JSON.parse(line));
    expect(lines.map((line) => line.decision)).toEqual(['ok', 'error', 'rate_limited']);
    expect(lines[0]).toMatchObject({
      kind: 'call',
      actor: 'apikey:ka',
      tool: 'repo:write',
      surface: 'rest',
      details: { callId: 'c1', args: { repo: 'acme/site', apiKey: '[REDACTED]' } },
    });
    expect(typeof lines[0].details.durationMs).toBe('number');
  });

  it('records nothing while audit.calls is off, read at each call', async () => {
    const trail = new MemoryAuditTrail();
    let on = false;
    const audit = callAudit({ trail, enabled: () => on });
    await audit(call, async () => ({ content: [] }));
    expect(trail.lines).toHaveLength(0);
    on = true;
    await audit(call, async () => ({ content: [] }));
    expect(trail.lines).toHaveLength(1);
  });
});
