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
  spec: nonEmptyString().describe(
    "File path (relative to the config file's folder) or http(s) URL of the OpenAPI 3.0/3.1 document, YAML or JSON.",
  ),
  namespace: namespaceString().describe('Namespace of the generated tools (`namespace:operationId`).'),
  baseUrl: httpUrl()
    .optional()
    .describe(
      "Where requests go; absent: the document's first `servers[].url`. Required when the spec is a file whose servers are relative or absent.",
    ),
  headers: stringMap()
    .optional()
    .describe(
      'Headers sent with every request (not when fetching the spec); they win over header parameters of the same name.',
    ),
  include: z
    .array(z.string())
    .optional()
    .describe(
      'Only operations matching one of these patterns become tools: an operationId, a tool name or `METHOD /path`; `*` matches any run of characters. Absent: every operation.',
    ),
  exclude: z
    .array(z.string())
    .optional()
    .describe('Operations matching one of these patterns are left out (applied after `include`).'),
  timeoutMs: int(1)
    .optional()
    .describe('Time limit of one HTTP request (and of fetching the spec), in ms; absent: 30000.'),
  allowPrivateNetwork: bool()
    .optional()
    .describe(
      'Allow loopback, private and link-local targets; absent: false (an agent must not reach the internal network).',
    ),
  maxResponseBytes: int(1)
    .optional()
    .describe('Largest response body read, in bytes; a bigger one fails the call. Absent: 10 MiB.'),
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
    fields: {
      openapi: z
        .array(openapiEntrySchema)
        .default([])
        .describe('HTTP services described by OpenAPI documents; each operation becomes a tool.'),
    },
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
