import { z } from 'zod';
import { bool, httpUrl, int, nonEmptyString } from './schema-primitives.js';

/**
 * `a2a` (docs/A2A.md): what the agent card says beyond the catalog, and how task updates are pushed
 * to clients' webhooks. Optional: without it the card has no provider and push notifications are
 * on for public webhook addresses.
 */
export const a2aSection = z
  .strictObject({
    card: z
      .strictObject({
        provider: z.strictObject({ organization: nonEmptyString(), url: httpUrl() }).optional(),
        documentationUrl: httpUrl().optional(),
        iconUrl: httpUrl().optional(),
      })
      .optional(),
    push: z
      .strictObject({
        /** Serve `tasks/pushNotificationConfig/*` and deliver updates. Default true. */
        enabled: bool().default(true),
        /** Let webhooks be on loopback, private or link-local addresses (SSRF guard). Default false. */
        allowPrivateNetwork: bool().default(false),
        /** Retries of a failed delivery (exponential backoff from `backoffMs`). */
        retries: int(0, 10).default(3),
        backoffMs: int(10, 60_000).default(500),
        timeoutMs: int(100, 60_000).default(5000),
      })
      .optional(),
  })
  .optional();

/** The parsed `a2a` section. */
export type A2aConfig = z.output<typeof a2aSection>;
