import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { callLog } from './call-log.js';
import { observeCalls } from './observe-calls.js';

/** A Logger port that keeps what is logged. */
function capture() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const log: Logger = {
    debug: (obj, msg) => lines.push({ level: 'debug', obj: obj as Record<string, unknown>, msg }),
    info: (obj, msg) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
    child: () => log,
  };
  return { log, lines };
}

function call(args: Record<string, unknown>, toolset?: string): RunCall {
  return {
    tool: makeTool('ns:tool'),
    args,
    ctx: {
      signal: new AbortController().signal,
      callId: 'call-1',
      caller: { identity: 'alice', ...(toolset ? { toolset } : {}) },
      progress: () => {},
      log: silentLogger,
    },
  };
}

describe('callLog', () => {
  it('writes one info line per call with tool, duration, outcome, caller and redacted args', async () => {
    const { log, lines } = capture();
    const middleware = observeCalls([callLog({ log })]);
    await middleware(call({ city: 'Paris', api_key: 'sk-very-secret' }, 'ro'), async () => ({ content: [] }));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line?.level).toBe('info');
    expect(line?.msg).toBe('tool call');
    expect(line?.obj).toMatchObject({
      tool: 'ns:tool',
      callId: 'call-1',
      outcome: 'ok',
      caller: 'alice',
      toolset: 'ro',
      args: { city: 'Paris', api_key: '[REDACTED]' },
    });
    expect(typeof line?.obj.durationMs).toBe('number');
    expect(line?.obj.code).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain('sk-very-secret');
  });

  it('attributes a call to the method and the name: an API key and a JWT subject "alice" differ', async () => {
    const { log, lines } = capture();
    const middleware = observeCalls([callLog({ log })]);
    for (const authMethod of ['api_key', 'jwt'] as const) {
      const base = call({});
      await middleware(
        { ...base, ctx: { ...base.ctx, caller: { identity: 'alice', authMethod } } },
        async () => ({
          content: [],
        }),
      );
    }
    expect(lines.map((line) => line.obj.caller)).toEqual(['apikey:alice', 'jwt:alice']);
  });

  it('logs a failure with its code but without its message (which may echo arguments)', async () => {
    const { log, lines } = capture();
    const middleware = observeCalls([callLog({ log })]);
    await expect(
      middleware(call({ password: 'pw-123' }), async () => {
        throw new GatewayError('execution_failed', 'login failed for password pw-123');
      }),
    ).rejects.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.obj).toMatchObject({ outcome: 'error', code: 'execution_failed' });
    expect(JSON.stringify(lines)).not.toContain('pw-123');
  });

  it('leaves the arguments out when asked to, and truncates long strings', async () => {
    const { log, lines } = capture();
    await observeCalls([callLog({ log, args: false })])(call({ q: 'x' }), async () => ({ content: [] }));
    expect(lines[0]?.obj.args).toBeUndefined();
    await observeCalls([callLog({ log, maxStringLength: 4 })])(call({ q: 'abcdefgh' }), async () => ({
      content: [],
    }));
    expect(lines[1]?.obj.args).toEqual({ q: 'abcd…[4 more chars]' });
  });
});
