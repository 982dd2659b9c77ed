import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { type ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { pushNotifications } from './push-notifications.js';

const context = { user: new UnauthenticatedUser() } as unknown as ServerCallContext;

function update(taskId: string, n: number): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { taskId, contextId: 'c', status: undefined, metadata: { n } },
    },
  } as unknown as StreamResponse;
}

function config(
  taskId: string,
  url: string,
  extra: Partial<TaskPushNotificationConfig> = {},
): TaskPushNotificationConfig {
  return { tenant: '', id: '', taskId, url, token: 'tok', authentication: undefined, ...extra };
}

describe('push notification delivery', () => {
  let server: Server;
  let url: string;
  /** Requests seen, and how many of the next ones fail with 503. */
  const seen: { auth?: string; token?: string; body: string }[] = [];
  let failures = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        if (failures > 0) {
          failures--;
          res.statusCode = 503;
          res.end();
          return;
        }
        seen.push({
          ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
          ...(req.headers['x-a2a-notification-token']
            ? { token: String(req.headers['x-a2a-notification-token']) }
            : {}),
          body,
        });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('retries a failing webhook with backoff and keeps a task updates in order', async () => {
    seen.length = 0;
    failures = 2;
    const { store, sender } = pushNotifications({ allowPrivateNetwork: true, backoffMs: 10 }, silentLogger);
    await store.save('t1', context, config('t1', url));
    await sender.send(update('t1', 1), context);
    await sender.send(update('t1', 2), context);
    await sender.idle();
    expect(seen.map((s) => JSON.parse(s.body).statusUpdate.metadata.n)).toEqual([1, 2]);
    expect(seen.every((s) => s.token === 'tok')).toBe(true);
  });

  it('gives up after the retries, and sends authentication as Authorization instead of the token', async () => {
    seen.length = 0;
    failures = 5;
    const { store, sender } = pushNotifications(
      { allowPrivateNetwork: true, backoffMs: 10, retries: 2 },
      silentLogger,
    );
    await store.save(
      't2',
      context,
      config('t2', url, { authentication: { scheme: 'Bearer', credentials: 'abc' } }),
    );
    await sender.send(update('t2', 1), context);
    await sender.idle();
    expect(seen).toEqual([]);
    expect(failures).toBe(2); // 1 attempt + 2 retries used 3 of the 5 failures
    failures = 0;
    await sender.send(update('t2', 2), context);
    await sender.idle();
    expect(seen).toMatchObject([{ auth: 'Bearer abc' }]);
    expect(seen[0]?.token).toBeUndefined();
  });

  it('refuses to store a webhook on a private address unless allowed, and a non-URL', async () => {
    const { store } = pushNotifications({}, silentLogger);
    await expect(store.save('t3', context, config('t3', url))).rejects.toThrow(/refused/);
    await expect(store.save('t3', context, config('t3', 'not a url'))).rejects.toThrow(/not an absolute URL/);
    expect(await store.load('t3', context)).toEqual([]);
  });
});
