import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { declaredInputSchema } from '../declared/declared-input-schema.js';
import { declaredTool } from '../declared/declared-section.js';
import type { ResolveHost } from '../net/network-guard.js';
import { HttpClient } from '../openapi/http-client.js';
import { compilePick, EndpointBackend } from './endpoint-backend.js';
import type { EndpointGroup } from './endpoint-entry.js';
import { EndpointGuard } from './endpoint-guard.js';
import { EndpointRequestPlan } from './endpoint-request.js';

/** Defaults of an endpoint entry. */
export const ENDPOINT_DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 10 * 1024 * 1024 } as const;

/** What the app gives the loader. */
export interface EndpointSourceContext {
  sourceId: string;
  log: Logger;
  /** Host resolution for the guard; tests inject one. */
  resolveHost?: ResolveHost;
}

/**
 * The tools of one namespace of `endpoints:`. Every entry is checked before any tool is published
 * (URL, templates against the input schema, `pick`, auth headers): one bad entry fails the source
 * with `config_invalid` naming its key, and the gateway serves the others.
 */
export async function loadEndpointSource(
  group: EndpointGroup,
  context: EndpointSourceContext,
): Promise<CatalogEntry[]> {
  const entries: CatalogEntry[] = [];
  for (const [name, entry] of group.tools) {
    const label = `${group.section}.${name}`;
    const plan = new EndpointRequestPlan(entry, label);
    const inputSchema = declaredInputSchema(entry.inputSchema, plan.uses, label, (use) =>
      EndpointRequestPlan.inferred(use, entry.url),
    );
    const pick = entry.response?.pick === undefined ? undefined : compilePick(entry.response.pick, label);
    const timeoutMs = entry.timeoutMs ?? ENDPOINT_DEFAULTS.timeoutMs;
    const guard = new EndpointGuard([plan.host], {
      allowPrivateNetwork: entry.allowPrivateNetwork ?? false,
      ...(context.resolveHost ? { resolveHost: context.resolveHost } : {}),
    });
    const client = new HttpClient({
      guard,
      timeoutMs,
      maxResponseBytes: entry.maxResponseBytes ?? ENDPOINT_DEFAULTS.maxResponseBytes,
      credentialHeaders: plan.credentialHeaders,
      credentialQuery: plan.credentialQuery,
    });
    const outputSchema = entry.response?.outputSchema ?? entry.outputSchema;
    const readOnly = plan.method === 'GET' || plan.method === 'HEAD' || plan.method === 'OPTIONS';
    const tool = declaredTool({
      sourceId: context.sourceId,
      kind: 'endpoint',
      namespace: group.namespace,
      name,
      entry: outputSchema === undefined ? entry : { ...entry, outputSchema },
      inputSchema,
      description: `Calls ${plan.method} ${entry.url.split('?')[0]}.`,
      annotations: {
        readOnlyHint: readOnly,
        ...(readOnly ? {} : { destructiveHint: plan.method === 'DELETE' }),
        idempotentHint: plan.retries > 0 || readOnly || plan.method === 'PUT' || plan.method === 'DELETE',
        openWorldHint: true,
      },
      tags: ['http', 'endpoint'],
      timeoutMs,
      notes: `Declared in the config (${label}): ${plan.method} ${entry.url}.`,
    });
    entries.push({ tool, backend: new EndpointBackend(plan, client, pick) });
  }
  context.log.info({ source: context.sourceId, tools: entries.length }, 'endpoints loaded');
  return entries;
}
