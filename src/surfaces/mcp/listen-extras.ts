import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { Logger } from '../../foundation/ports/logger.js';
import { clientSdk } from '../../sources/mcp/client-sdk.js';
import { type McpSessionFactory, type SessionContext, sessionOwner } from './session-factory.js';
import type { TaskNotifications } from './task-notifications.js';

/** What a `subscriptions/listen` request asks to hear (the SDK's filter and the Tasks extension's `taskIds`). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  taskIds?: string[];
}

/** What one listen stream carries beyond the catalog's tool changes, once opened. */
export interface OpenedExtras {
  /** The part of the filter these notifications honour (the acknowledgement says so). */
  honored: Omit<ListenFilter, 'toolsListChanged'>;
  close(): void;
}

/** The notifications of a 2026-07-28 listen stream that the SDK's own event bus does not carry. */
export interface ListenExtras {
  open(
    context: SessionContext,
    filter: ListenFilter,
    emit: (method: string, params: Record<string, unknown>) => void,
  ): Promise<OpenedExtras>;
}

export interface ListenExtrasOptions {
  createSession: McpSessionFactory;
  tasks?: TaskNotifications | undefined;
  log: Logger;
}

/**
 * The downstream servers' prompt and resource list changes, the updates of the resources the
 * client named, and its tasks' status, for one `subscriptions/listen` stream.
 *
 * The first three are what a 2025 session hears from the passthrough, so the stream gets a session
 * of its own, served by the same factory (in memory, for the stream's lifetime): its
 * `resources/subscribe` goes through everything a 2025 client's does — the names resolved to the
 * owning server, servers outside the caller's toolsets refused, the policy and rate limits of
 * `<ns>:resources/subscribe`, the subscription counted on the server's shared connection — and the
 * updates and list changes it relays (only those of servers the caller sees) are the stream's.
 * A URI refused or unknown is left out of the acknowledgement. Tasks: `TaskNotifications`.
 */
export function listenExtras(options: ListenExtrasOptions): ListenExtras {
  return {
    async open(context, filter, emit) {
      const honored: OpenedExtras['honored'] = {};
      const closers: (() => void)[] = [];
      const close = () => {
        for (const closeOne of closers.splice(0)) closeOne();
      };
      try {
        const taskIds = filter.taskIds ?? [];
        if (taskIds.length > 0 && options.tasks) {
          const watch = await options.tasks.watch(sessionOwner(context.caller), taskIds, (task) =>
            emit('notifications/tasks', task),
          );
          closers.push(watch.stop);
          if (watch.honored.length > 0) honored.taskIds = watch.honored;
        }
        if (
          filter.promptsListChanged ||
          filter.resourcesListChanged ||
          filter.resourceSubscriptions?.length
        ) {
          Object.assign(honored, await relaySession(options, context, filter, emit, closers));
        }
        return { honored, close };
      } catch (error) {
        close();
        throw error;
      }
    },
  };
}

/** The passthrough's notifications for one stream, through a session of its own (in memory). */
async function relaySession(
  options: ListenExtrasOptions,
  context: SessionContext,
  filter: ListenFilter,
  emit: (method: string, params: Record<string, unknown>) => void,
  closers: (() => void)[],
): Promise<OpenedExtras['honored']> {
  // Loaded on first use: a gateway whose listeners ask for nothing downstream never needs it.
  const { Client } = await clientSdk();
  const { server, dispose } = options.createSession(context);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'aperture-listen', version: '1' });
  closers.push(() => {
    // Closing the session ends its subscriptions (the passthrough unsubscribes what it held).
    void client.close().catch(() => {});
    dispose();
    void server.close().catch(() => {});
  });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const offered = client.getServerCapabilities();
  const honored: OpenedExtras['honored'] = {};
  if (filter.promptsListChanged && offered?.prompts?.listChanged) {
    honored.promptsListChanged = true;
    client.setNotificationHandler('notifications/prompts/list_changed', (n) =>
      emit(n.method, n.params ?? {}),
    );
  }
  if (filter.resourcesListChanged && offered?.resources?.listChanged) {
    honored.resourcesListChanged = true;
    client.setNotificationHandler('notifications/resources/list_changed', (n) =>
      emit(n.method, n.params ?? {}),
    );
  }
  const uris = [...new Set(filter.resourceSubscriptions ?? [])];
  if (uris.length > 0 && offered?.resources?.subscribe) {
    const subscribed = new Set<string>();
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      if (subscribed.has(n.params.uri)) emit(n.method, n.params);
    });
    await Promise.all(
      uris.map(async (uri) => {
        try {
          await client.request({ method: 'resources/subscribe', params: { uri } });
          subscribed.add(uri);
        } catch (error) {
          options.log.debug({ uri, err: (error as Error).message }, 'listen: resource not subscribed');
        }
      }),
    );
    const kept = uris.filter((uri) => subscribed.has(uri));
    if (kept.length > 0) honored.resourceSubscriptions = kept;
  }
  return honored;
}
