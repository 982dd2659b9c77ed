import { z } from 'zod';
import { LoadedSource } from '../../catalog/loaded-source.js';
import { bool, httpUrl, int, namespaceString, stringMap } from '../../foundation/schema/config-values.js';
import type { SourceDriver, SourceSection } from '../source-driver.js';

/** A remote A2A agent; each skill of its card becomes a tool `<name>:<skill id>`. */
const agentEntrySchema = z.strictObject({
  url: httpUrl().describe(
    "The agent's base URL (its card is at `{url}/.well-known/agent-card.json`) or its card's URL.",
  ),
  headers: stringMap().optional().describe('Sent with every request to the agent (e.g. `Authorization`).'),
  timeoutMs: int(1)
    .optional()
    .describe("Longest a call may wait for the agent's task to finish; absent: 60000."),
  allowPrivateNetwork: bool()
    .optional()
    .describe('Allow the agent on a loopback, private or link-local address; absent: false.'),
});

/** One entry of `agents:` as validated. */
export type AgentEntry = z.output<typeof agentEntrySchema>;

/** The catalog source id of the entry `key`. */
function sourceId(key: string): string {
  return `a2a:${key}`;
}

/**
 * Remote A2A agents (`agents:`, keyed by name, the name being the tools' namespace), loaded once
 * from their cards. The A2A client is imported only when configured.
 */
export const A2A_DRIVER: SourceDriver<
  'a2a',
  SourceSection<'agents', Record<string, AgentEntry>, AgentEntry>
> = {
  kind: 'a2a',
  trustGated: true,
  section: {
    name: 'agents',
    fields: {
      agents: z
        .record(namespaceString(), agentEntrySchema)
        .default({})
        .describe(
          "Remote A2A agents, keyed by name (their tools' namespace); each skill of a card becomes a tool.",
        ),
    },
    entries: (agents) => Object.entries(agents),
    sourceId,
    create(name, entry, context) {
      const load = async () => {
        const { loadA2aAgentSource } = await import('./a2a-agent-source.js');
        return loadA2aAgentSource(name, entry, { log: context.log });
      };
      return new LoadedSource(sourceId(name), 'a2a', load, context.log);
    },
  },
};
