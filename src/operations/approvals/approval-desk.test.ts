import { describe, expect, it } from 'vitest';
import { closableChannel } from '../../../test/support/closable-channel.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ApprovalRequest } from '../../foundation/ports/approval-gate.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { MemoryAuditTrail } from '../audit/memory-audit-trail.js';
import { ApprovalDesk, type ApprovalDeskOptions } from './approval-desk.js';

const request: ApprovalRequest = {
  toolId: 'demo:delete_repo',
  caller: { identity: 'ka', authMethod: 'api_key' },
  surface: 'mcp',
  args: { repo: 'acme/site', apiToken: 'hunter2', note: 'x'.repeat(400) },
  rule: 'ask-deletes',
  reason: 'Deleting a repository cannot be undone',
};

function context(channel?: ClientChannel, signal = new AbortController().signal): ExecutionContext {
  return {
    signal,
    callId: 'c1',
    caller: request.caller,
    progress: () => {},
    ...(channel ? { channel } : {}),
    log: silentLogger,
  };
}

/** A client that declared elicitation and answers each ask with `answer` (recording the asks). */
function eliciting(
  answer: (params: Record<string, unknown>, signal?: AbortSignal) => Promise<unknown>,
  elicitation: Record<string, unknown> = {},
) {
  const asks: Record<string, unknown>[] = [];
  const channel: ClientChannel = {
    ...closableChannel('s1'),
    capabilities: () => ({ elicitation }),
    request: async (method, params, signal) => {
      expect(method).toBe('elicitation/create');
      asks.push(params ?? {});
      return answer(params ?? {}, signal);
    },
  };
  return { channel, asks };
}

function desk(options: ApprovalDeskOptions = {}) {
  const audit = new MemoryAuditTrail();
  return { desk: new ApprovalDesk({ audit, ...options }), audit };
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

const kinds = (audit: MemoryAuditTrail) =>
  audit.lines.map(
    (line) =>
      JSON.parse(line) as {
        kind: string;
        actor: string;
        decision?: string;
        details?: Record<string, unknown>;
      },
  );

describe('ApprovalDesk through the client (elicitation)', () => {
  it('asks the client with the tool, the reason and the redacted arguments; accept runs the call', async () => {
    const { desk: gate, audit } = desk();
    const { channel, asks } = eliciting(async () => ({ action: 'accept', content: {} }));
    await expect(gate.approve(request, context(channel))).resolves.toBeUndefined();
    const message = String(asks[0]?.message);
    expect(message).toContain('demo:delete_repo');
    expect(message).toContain('Deleting a repository cannot be undone');
    expect(message).toContain('acme/site');
    expect(message).toContain('[REDACTED]');
    expect(message).not.toContain('hunter2');
    expect(message).toMatch(/more chars/);
    expect(asks[0]?.requestedSchema).toEqual({ type: 'object', properties: {} });
    expect(gate.pending()).toEqual([]);
    expect(kinds(audit)).toMatchObject([
      {
        kind: 'approval.request',
        actor: 'apikey:ka',
        details: { via: 'client', args: { apiToken: '[REDACTED]' } },
      },
      { kind: 'approval.answer', actor: 'apikey:ka', decision: 'approved' },
    ]);
  });

  it.each(['decline', 'cancel'])('answers approval_denied when the client says %s', async (action) => {
    const { desk: gate, audit } = desk();
    const { channel } = eliciting(async () => ({ action }));
    const error = await failure(gate.approve(request, context(channel)));
    expect(error.code).toBe('approval_denied');
    expect(error.details).toMatchObject({ rule: 'ask-deletes' });
    expect(kinds(audit)[1]).toMatchObject({ kind: 'approval.answer', decision: 'denied' });
  });

  it('answers approval_timeout when the client does not answer in time', async () => {
    const { desk: gate } = desk({ timeoutMs: () => 50 });
    const { channel } = eliciting(
      (_params, signal) =>
        new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    );
    expect((await failure(gate.approve(request, context(channel)))).code).toBe('approval_timeout');
  });

  it('answers cancelled when the call is cancelled while the client is asked', async () => {
    const { desk: gate } = desk();
    const abort = new AbortController();
    const { channel } = eliciting(
      (_params, signal) =>
        new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    );
    const held = gate.approve(request, context(channel, abort.signal));
    setTimeout(() => abort.abort(), 10);
    expect((await failure(held)).code).toBe('cancelled');
  });

  it('queues for admins a call whose client failed to answer the ask', async () => {
    const { desk: gate } = desk();
    const { channel } = eliciting(async () => {
      throw new Error('Method not found');
    });
    const held = gate.approve(request, context(channel));
    await expect.poll(() => gate.pending().length).toBe(1);
    gate.answer(gate.pending()[0]?.id ?? '', 'approve', 'apikey:root');
    await expect(held).resolves.toBeUndefined();
  });

  it('does not ask a client that declared only URL-mode elicitation, nor any client with via: admin', async () => {
    for (const [options, elicitation] of [
      [{}, { url: {} }],
      [{ via: () => 'admin' as const }, {}],
    ] as const) {
      const { desk: gate } = desk(options);
      const { channel, asks } = eliciting(async () => ({ action: 'accept' }), elicitation);
      const held = gate.approve(request, context(channel));
      await expect.poll(() => gate.pending().length).toBe(1);
      expect(asks).toEqual([]);
      gate.answer(gate.pending()[0]?.id ?? '', 'deny', 'apikey:root');
      expect((await failure(held)).code).toBe('approval_denied');
    }
  });
});

describe('ApprovalDesk through the admin queue', () => {
  it('lists the held call, redacted, and runs it once an admin approves', async () => {
    const { desk: gate, audit } = desk({ mask: (text) => text.replaceAll('acme', '***') });
    const changes: number[] = [];
    gate.onChange(() => changes.push(gate.pending().length));
    const held = gate.approve(request, context());
    await expect.poll(() => gate.pending().length).toBe(1);
    const [entry] = gate.pending();
    expect(entry).toMatchObject({
      tool: 'demo:delete_repo',
      caller: 'apikey:ka',
      surface: 'mcp',
      rule: 'ask-deletes',
      reason: 'Deleting a repository cannot be undone',
      args: { repo: '***/site', apiToken: '[REDACTED]' },
    });
    expect(Date.parse(entry?.expiresAt ?? '') - Date.parse(entry?.requestedAt ?? '')).toBe(300_000);
    expect(gate.answer(entry?.id ?? '', 'approve', 'apikey:root')).toMatchObject({ id: entry?.id });
    await expect(held).resolves.toBeUndefined();
    expect(gate.pending()).toEqual([]);
    expect(changes).toEqual([1, 0]);
    expect(kinds(audit)).toMatchObject([
      { kind: 'approval.request', details: { via: 'admin' } },
      {
        kind: 'approval.answer',
        actor: 'apikey:root',
        decision: 'approved',
        details: { caller: 'apikey:ka' },
      },
    ]);
  });

  it('answers approval_denied once an admin denies, and not_found for an id answered already', async () => {
    const { desk: gate } = desk();
    const held = gate.approve(request, context());
    await expect.poll(() => gate.pending().length).toBe(1);
    const id = gate.pending()[0]?.id ?? '';
    gate.answer(id, 'deny', 'apikey:root');
    expect((await failure(held)).code).toBe('approval_denied');
    expect(() => gate.answer(id, 'approve', 'apikey:root')).toThrow(/No call waits/);
  });

  it('answers approval_timeout after the timeout read at the call, and the entry leaves the queue', async () => {
    const { desk: gate, audit } = desk({ timeoutMs: () => 40 });
    const error = await failure(gate.approve(request, context()));
    expect(error.code).toBe('approval_timeout');
    expect(error.retryable).toBe(true);
    expect(gate.pending()).toEqual([]);
    expect(kinds(audit)[1]).toMatchObject({ decision: 'timeout', actor: 'gateway' });
  });

  it('answers cancelled when the call is aborted while it waits, and the entry leaves the queue', async () => {
    const { desk: gate } = desk();
    const abort = new AbortController();
    const held = gate.approve(request, context(undefined, abort.signal));
    await expect.poll(() => gate.pending().length).toBe(1);
    abort.abort();
    expect((await failure(held)).code).toBe('cancelled');
    expect(gate.pending()).toEqual([]);
    // Already aborted: never queued.
    expect((await failure(gate.approve(request, context(undefined, abort.signal)))).code).toBe('cancelled');
  });

  it('answers every waiting call cancelled when the gateway closes', async () => {
    const { desk: gate } = desk();
    const held = [gate.approve(request, context()), gate.approve(request, context())];
    await expect.poll(() => gate.pending().length).toBe(2);
    gate.close();
    for (const call of held) expect((await failure(call)).code).toBe('cancelled');
  });
});
