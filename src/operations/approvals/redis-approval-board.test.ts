import { describe, expect, it } from 'vitest';
import { useRedisServer } from '../../../test/support/redis-fixture.js';
import { redisServerBin, unlessRedis } from '../../../test/support/redis-server.js';
import type { ApprovalRequest } from '../../foundation/ports/approval-gate.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { ApprovalDesk } from './approval-desk.js';
import { RedisApprovalBoard } from './redis-approval-board.js';

const redis = useRedisServer();

const request: ApprovalRequest = {
  toolId: 'repo:delete',
  caller: { identity: 'ka', authMethod: 'api_key' },
  surface: 'rest',
  args: { repo: 'acme/site' },
  rule: 'ask',
};
const context = (): ExecutionContext => ({
  signal: new AbortController().signal,
  callId: 'c',
  caller: request.caller,
  progress: () => {},
  log: silentLogger,
});

/** Two replicas' desks sharing one board prefix, each on a connection of its own. */
async function replicas(timeoutMs = 60_000) {
  const prefix = redis.prefix();
  const desks = await Promise.all(
    [0, 1].map(async () => {
      const desk = new ApprovalDesk({
        board: new RedisApprovalBoard(await redis.connect(prefix)),
        timeoutMs: () => timeoutMs,
      });
      await desk.start();
      return desk;
    }),
  );
  return desks as [ApprovalDesk, ApprovalDesk];
}

describe.skipIf(!redisServerBin)(`the approval queue shared by replicas (Redis)${unlessRedis()}`, () => {
  it('lists a call held on one replica on the other, which answers it', async () => {
    const [a, b] = await replicas();
    const held = a.approve(request, context());
    await expect.poll(async () => (await b.list()).length).toBe(1);
    const [entry] = await b.list();
    expect(entry).toMatchObject({ tool: 'repo:delete', caller: 'apikey:ka', surface: 'rest' });
    expect(b.pending()).toEqual([]);
    expect(await b.answerAnywhere(entry?.id ?? '', 'approve', 'apikey:root')).toMatchObject({
      id: entry?.id,
    });
    await expect(held).resolves.toBeUndefined();
    await expect.poll(async () => (await b.list()).length).toBe(0);
    await expect(b.answerAnywhere(entry?.id ?? '', 'deny', 'apikey:root')).rejects.toThrow(/No call waits/);
    await Promise.all([a.close(), b.close()]);
  });

  it('denies through the other replica, and drops the entry of a call that timed out', async () => {
    const [a, b] = await replicas(300);
    const denied = a.approve(request, context());
    await expect.poll(async () => (await b.list()).length).toBe(1);
    await b.answerAnywhere((await b.list())[0]?.id ?? '', 'deny', 'apikey:root');
    await expect(denied).rejects.toMatchObject({ code: 'approval_denied' });
    await expect(a.approve(request, context())).rejects.toMatchObject({ code: 'approval_timeout' });
    await expect.poll(async () => (await b.list()).length).toBe(0);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('the shared approval queue while Redis is down', () => {
  it("lists and answers this replica's own calls", async () => {
    const connection = await redis.connect('down:', { url: 'redis://127.0.0.1:1', waitUp: false });
    const desk = new ApprovalDesk({ board: new RedisApprovalBoard(connection) });
    // Starts although Redis does not answer (it subscribes once Redis is up).
    await desk.start();
    const held = desk.approve(request, context());
    await expect.poll(async () => (await desk.list()).length).toBe(1);
    await desk.answerAnywhere((await desk.list())[0]?.id ?? '', 'approve', 'apikey:root');
    await expect(held).resolves.toBeUndefined();
    await desk.close();
  });
});
