import { z } from 'zod';
import { bool, httpUrl, int, nonEmptyString } from './schema-primitives.js';

export const a2aSection = z
  .strictObject({
    card: z
      .strictObject({
        provider: z
          .strictObject({
            organization: nonEmptyString().describe("The organisation's name."),
            url: httpUrl().describe("The organisation's web site."),
          })
          .optional()
          .describe('The organisation that runs the gateway, as the agent card names it.'),
        documentationUrl: httpUrl().optional().describe('A page documenting the agent.'),
        iconUrl: httpUrl().optional().describe("The agent's icon."),
      })
      .optional()
      .describe('What the agent card says beyond the catalog.'),
    push: z
      .strictObject({
        enabled: bool()
          .default(true)
          .describe('Serve `tasks/pushNotificationConfig/*` and deliver updates. Default true.'),
        allowPrivateNetwork: bool()
          .default(false)
          .describe(
            'Let webhooks be on loopback, private or link-local addresses (SSRF guard). Default false.',
          ),
        retries: int(0, 10)
          .default(3)
          .describe('Retries of a failed delivery (exponential backoff from `backoffMs`).'),
        backoffMs: int(10, 60_000)
          .default(500)
          .describe('The first wait before a retried delivery, in ms (doubled each time).'),
        timeoutMs: int(100, 60_000)
          .default(5000)
          .describe('Each delivery to a webhook fails after this long.'),
      })
      .optional()
      .describe("How task updates are pushed to clients' webhooks."),
  })
  .optional()
  .describe(
    "`a2a` (docs/A2A.md): what the agent card says beyond the catalog, and how task updates are pushed to clients' webhooks. Optional: without it the card has no provider and push notifications are on for public webhook addresses.",
  );

/** The parsed `a2a` section. */
export type A2aConfig = z.output<typeof a2aSection>;
