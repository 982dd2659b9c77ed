import type { Client, SubscriptionFilter } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { ListenStream } from './listen-stream.js';

interface FakeSubscription {
  filter: SubscriptionFilter;
  closedBy?: string;
  end(how: 'graceful' | 'remote'): void;
}

/** A client whose `listen` opens recorded subscriptions the test can end. */
function fakeClient(failures = 0) {
  const opened: FakeSubscription[] = [];
  let failing = failures;
  const client = {
    listen: vi.fn(async (filter: SubscriptionFilter) => {
      if (failing-- > 0) throw new Error('refused');
      let settle!: (how: 'local' | 'graceful' | 'remote') => void;
      const closed = new Promise<'local' | 'graceful' | 'remote'>((resolve) => {
        settle = resolve;
      });
      const record: FakeSubscription = {
        filter,
        end: (how) => settle(how),
      };
      opened.push(record);
      return {
        honoredFilter: filter,
        closed,
        close: async () => {
          record.closedBy ??= 'local';
          settle('local');
        },
      };
    }),
  } as unknown as Client;
  return { client, opened };
}

describe('ListenStream', () => {
  it('opens with the current filter, and a refresh opens the new stream before closing the old', async () => {
    const { client, opened } = fakeClient();
    let uris = ['a://1'];
    const stream = new ListenStream(client, {
      filter: () => ({ toolsListChanged: true, resourceSubscriptions: uris }),
      wanted: () => true,
      log: silentLogger,
    });
    await stream.refresh();
    expect(opened.map((s) => s.filter)).toEqual([
      { toolsListChanged: true, resourceSubscriptions: ['a://1'] },
    ]);
    uris = ['a://1', 'a://2'];
    await stream.refresh();
    expect(opened).toHaveLength(2);
    expect(opened[1]?.filter.resourceSubscriptions).toEqual(['a://1', 'a://2']);
    expect(opened[0]?.closedBy).toBe('local');
    expect(opened[1]?.closedBy).toBeUndefined();
    await stream.close();
    expect(opened[1]?.closedBy).toBe('local');
  });

  it('listens for nothing when there is nothing to hear', async () => {
    const { client, opened } = fakeClient();
    const stream = new ListenStream(client, { filter: () => ({}), wanted: () => true, log: silentLogger });
    await stream.refresh();
    expect(opened).toEqual([]);
  });

  it('opens again a stream the server dropped, or failed to open, while it is wanted', async () => {
    const { client, opened } = fakeClient(1);
    let wanted = true;
    const stream = new ListenStream(client, {
      filter: () => ({ toolsListChanged: true }),
      wanted: () => wanted,
      log: silentLogger,
      retryMs: 10,
    });
    await stream.refresh();
    await vi.waitFor(() => expect(opened).toHaveLength(1));
    opened[0]?.end('remote');
    await vi.waitFor(() => expect(opened).toHaveLength(2));
    wanted = false;
    opened[1]?.end('remote');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened).toHaveLength(2);
    await stream.close();
  });

  it('does not open again for a filter it already listens with', async () => {
    const { client, opened } = fakeClient();
    const stream = new ListenStream(client, {
      filter: () => ({ toolsListChanged: true }),
      wanted: () => true,
      log: silentLogger,
    });
    await stream.refresh();
    await stream.refresh();
    expect(opened).toHaveLength(1);
    await stream.close();
  });

  it('bounds the opening by openTimeoutMs, and a refresh with waitMs settles though the server never acknowledges', async () => {
    const listen = vi.fn(
      (_filter: SubscriptionFilter, _options?: { timeout?: number }) => new Promise(() => {}),
    );
    const client = { listen } as unknown as Client;
    const stream = new ListenStream(client, {
      filter: () => ({ resourceSubscriptions: ['a://1'] }),
      wanted: () => true,
      log: silentLogger,
      openTimeoutMs: 1234,
    });
    await stream.refresh(20);
    expect(listen).toHaveBeenCalledTimes(1);
    expect(listen.mock.calls[0]?.[1]).toEqual({ timeout: 1234 });
  });
});
