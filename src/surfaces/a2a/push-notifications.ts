import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  InMemoryPushNotificationStore,
  type PushNotificationSender,
  type ServerCallContext,
  V1PushNotificationSerializer,
} from '@a2a-js/sdk/server';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { guardedFetch } from '../../sources/net/guarded-fetch.js';
import { NetworkGuard } from '../../sources/net/network-guard.js';

/** `a2a.push`: how task updates are delivered to clients' webhooks. */
export interface PushOptions {
  /** Let webhooks be on loopback, private or link-local addresses. Default false. */
  allowPrivateNetwork?: boolean | undefined;
  /** Attempts per delivery after the first. Default 3. */
  retries?: number | undefined;
  /** Delay before the first retry; doubled each time. Default 500 ms. */
  backoffMs?: number | undefined;
  /** One attempt's time limit. Default 5000 ms. */
  timeoutMs?: number | undefined;
  /** The network guard (tests). */
  guard?: NetworkGuard | undefined;
}

/** The header of the A2A spec for a config's `token` (the client checks it to trust a delivery). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/**
 * Push-notification configs of each caller's tasks (the SDK's in-memory store, keyed by owner so a
 * caller sees only its own), refusing at `set` a webhook URL the SSRF guard refuses: only http(s),
 * and only public addresses unless `a2a.push.allowPrivateNetwork`.
 */
export class GuardedPushStore extends InMemoryPushNotificationStore {
  constructor(private readonly guard: NetworkGuard) {
    super();
  }

  override async save(
    taskId: string,
    context: ServerCallContext,
    config: TaskPushNotificationConfig,
  ): Promise<void> {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new RequestMalformedError(`The push notification url "${config.url}" is not an absolute URL`);
    }
    try {
      await this.guard.check(url);
    } catch (error) {
      const reason = error instanceof GatewayError ? error.message : String(error);
      throw new RequestMalformedError(`The push notification url is refused: ${reason}`);
    }
    await super.save(taskId, context, config);
  }
}

/**
 * Delivers each task update to the task's webhooks as the A2A spec says: a POST of the
 * `StreamResponse` (v1.0 JSON, `application/a2a+json`), with `Authorization: <scheme> <credentials>`
 * when the config carries `authentication`, else the config's `token` in
 * `X-A2A-Notification-Token`. Every hop goes through the SSRF guard (connections pinned; redirects
 * re-checked); a failed attempt (network error, timeout, non-2xx) is retried with exponential
 * backoff. Deliveries of one task keep their order; a failure is logged, never fails the task.
 */
export class GuardedPushSender implements PushNotificationSender {
  private readonly fetch: typeof fetch;
  private readonly serializer = new V1PushNotificationSerializer();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: GuardedPushStore,
    private readonly options: PushOptions & { guard: NetworkGuard },
    private readonly log: Logger,
  ) {
    this.fetch = guardedFetch({ guard: options.guard, maxRedirects: 3 });
  }

  send(streamResponse: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(streamResponse) || task?.id || '';
    if (!taskId) return Promise.resolve();
    const previous = this.chains.get(taskId) ?? Promise.resolve();
    const next = previous.then(() => this.deliverAll(taskId, streamResponse, context, task));
    this.chains.set(taskId, next);
    void next.finally(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
    // The SDK awaits the sender before the next event: delivery runs detached so a slow webhook
    // never holds the task back.
    return Promise.resolve();
  }

  /** Resolves when every delivery queued so far has settled (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private async deliverAll(taskId: string, update: StreamResponse, context: ServerCallContext, task?: Task) {
    const configs = await this.store.load(taskId, context).catch(() => []);
    await Promise.all(configs.map((config) => this.deliver(config, update, task)));
  }

  private async deliver(
    config: TaskPushNotificationConfig,
    update: StreamResponse,
    task?: Task,
  ): Promise<void> {
    const { body, contentType } = this.serializer.serialize(update, task);
    const headers: Record<string, string> = { 'content-type': contentType };
    if (config.authentication?.scheme && config.authentication.credentials) {
      headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
    } else if (config.token) {
      headers[NOTIFICATION_TOKEN_HEADER] = config.token;
    }
    const retries = this.options.retries ?? 3;
    let delay = this.options.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.fetch(config.url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
        });
        await response.body?.cancel().catch(() => {});
        if (response.ok) return;
        throw new Error(`HTTP ${response.status}`);
      } catch (error) {
        // A refused address does not become allowed by retrying.
        const final = attempt >= retries || (error instanceof GatewayError && error.code === 'forbidden');
        if (final) {
          this.log.warn(
            { taskId: config.taskId, url: config.url, attempts: attempt + 1, err: (error as Error).message },
            'push notification not delivered',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }
}

function taskIdOf(update: StreamResponse): string {
  const payload = update.payload;
  switch (payload?.$case) {
    case 'task':
      return payload.value.id;
    case 'statusUpdate':
    case 'artifactUpdate':
      return payload.value.taskId;
    case 'message':
      return payload.value.taskId;
    default:
      return '';
  }
}

/** The store and sender of `a2a.push`. */
export function pushNotifications(
  options: PushOptions,
  log: Logger,
): { store: GuardedPushStore; sender: GuardedPushSender } {
  const guard =
    options.guard ?? new NetworkGuard({ allowPrivateNetwork: options.allowPrivateNetwork ?? false });
  const store = new GuardedPushStore(guard);
  return { store, sender: new GuardedPushSender(store, { ...options, guard }, log) };
}
