import { z } from 'zod';
import { bool, int } from './schema-primitives.js';

function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'redis:' || url.protocol === 'rediss:';
  } catch {
    return false;
  }
}

/** Default `state.redis.prefix`: every key and channel the gateway uses in Redis starts with it. */
export const DEFAULT_REDIS_PREFIX = 'aperture:';

/** Default `state.redis.commandTimeoutMs`: the longest any one Redis command may hold a call. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 1000;

export const redisStateSection = z
  .strictObject({
    url: z
      .string()
      .trim()
      .refine(isRedisUrl, { error: 'must be a redis:// or rediss:// URL, e.g. redis://localhost:6379' })
      .describe('`redis://host:6379/0` or `rediss://…` (TLS).'),
    prefix: z
      .string()
      .min(1, { error: 'must not be empty' })
      .default(DEFAULT_REDIS_PREFIX)
      .describe(
        'Prefix of every key and pub/sub channel, so several gateways (or apps) can share one Redis.',
      ),
    tls: bool().optional().describe('Connect over TLS (implied by a `rediss://` URL).'),
    username: z.string().min(1).optional().describe('ACL user name (Redis 6+); overrides one in the URL.'),
    password: z
      .string()
      .min(1)
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax, as text
      .describe('Password, e.g. `${secret:REDIS_PASSWORD}`; overrides one in the URL.'),
    commandTimeoutMs: int(50, 60_000)
      .default(DEFAULT_REDIS_COMMAND_TIMEOUT_MS)
      .describe('The longest one command may take before it fails (and the caller falls back).'),
  })
  .describe(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax, as text
    '`state.redis`: where replicas share their state (`state.driver: redis`). Credentials may come from `${secret:…}` like any string; a `rediss://` URL or `tls: true` connects over TLS.',
  );
