import { z } from 'zod';
import { LoadedSource } from '../../catalog/loaded-source.js';
import { declaredToolName, groupByNamespace } from '../declared/declared-section.js';
import type { SourceDriver, SourceSection } from '../source-driver.js';
import { type EndpointEntry, type EndpointGroup, endpointEntrySchema } from './endpoint-entry.js';

function sourceId(namespace: string): string {
  return `endpoint:${namespace}`;
}

/**
 * HTTP endpoints declared in the config (`endpoints:`, keyed by tool name), one source per
 * namespace. The request code is imported only when the section has entries.
 */
export const ENDPOINT_DRIVER: SourceDriver<
  'endpoint',
  SourceSection<'endpoints', Record<string, EndpointEntry>, EndpointGroup>
> = {
  kind: 'endpoint',
  // The user wrote every word of these tools: nothing a third party can change under the agent.
  trustGated: false,
  section: {
    name: 'endpoints',
    fields: {
      endpoints: z
        .record(declaredToolName(), endpointEntrySchema)
        .default({})
        .describe('HTTP endpoints as tools, keyed by tool name.'),
    },
    entries: (endpoints) => groupByNamespace('endpoints', endpoints),
    sourceId,
    create(namespace, group, context) {
      const id = sourceId(namespace);
      const load = async () => {
        const { loadEndpointSource } = await import('./endpoint-source.js');
        return loadEndpointSource(group, { sourceId: id, log: context.log });
      };
      return new LoadedSource(id, 'endpoint', load, context.log);
    },
  },
};
