import { z } from 'zod';
import { LoadedSource } from '../../catalog/loaded-source.js';
import {
  bool,
  httpUrl,
  int,
  namespaceString,
  nonEmptyString,
  stringMap,
} from '../../foundation/schema/config-values.js';
import type { SourceDriver, SourceSection } from '../source-driver.js';

/** One HTTP service described by an OpenAPI document; each operation becomes a tool. */
const openapiEntrySchema = z.strictObject({
  /** File path (relative to the config file) or http(s) URL of the OpenAPI 3.0/3.1 document. */
  spec: nonEmptyString(),
  namespace: namespaceString(),
  baseUrl: httpUrl().optional(),
  headers: stringMap().optional(),
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
  timeoutMs: int(1).optional(),
  /** Allow loopback/private/link-local targets (off: an agent must not reach the internal network). */
  allowPrivateNetwork: bool().optional(),
  maxResponseBytes: int(1).optional(),
});

/** One entry of `openapi:` as validated. */
export type OpenApiEntry = z.output<typeof openapiEntrySchema>;

/** The catalog source id of the entry `key`. */
function sourceId(key: string): string {
  return `openapi:${key}`;
}

/**
 * HTTP services described by OpenAPI documents (`openapi:`, a list), loaded once; keyed by
 * namespace. The loader (and its YAML and OpenAPI parsing) is imported only when configured.
 */
export const OPENAPI_DRIVER: SourceDriver<
  'openapi',
  SourceSection<'openapi', OpenApiEntry[], OpenApiEntry>
> = {
  kind: 'openapi',
  trustGated: true,
  section: {
    name: 'openapi',
    fields: { openapi: z.array(openapiEntrySchema).default([]) },
    entries: (services) => services.map((entry) => [entry.namespace, entry]),
    sourceId,
    create(namespace, entry, context) {
      const id = sourceId(namespace);
      const load = async () => {
        const { loadOpenApiSource } = await import('./openapi-source.js');
        return loadOpenApiSource(entry, { sourceId: id, baseDir: context.baseDir, log: context.log });
      };
      return new LoadedSource(id, 'openapi', load, context.log);
    },
  },
};
