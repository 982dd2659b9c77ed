import type { Catalog } from '../catalog/catalog.js';
import type { CatalogEntry } from '../catalog/catalog-entry.js';
import { GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import type { Tool, ToolResult } from '../foundation/model/tool.js';
import type { ExecutionContext } from '../foundation/ports/tool-backend.js';
import { isRecord } from '../foundation/util/is-record.js';
import { normalizeResult } from './normalize-result.js';

/** The `_meta` key of a result that names the backend (tool id) that answered it. */
export const ANSWERED_BY_META_KEY = 'aperture/answeredBy';

/** How long a backend that answered `backend_unavailable` is passed over before it is tried first again. */
export const FAILOVER_COOLDOWN_MS = 30_000;

/** The alternatives a tool carries (`metadata.extra.alternatives`, set by an override). */
export function alternativesOf(tool: Pick<Tool, 'metadata'>): readonly string[] {
  const value = tool.metadata.extra?.alternatives;
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * Which backends are down: one that answered `backend_unavailable` is passed over for a cooldown,
 * so calls go straight to the first healthy one instead of waiting on a dead one each time.
 */
export class BackendHealth {
  private readonly downUntil = new Map<string, number>();

  constructor(private readonly cooldownMs = FAILOVER_COOLDOWN_MS) {}

  healthy(id: string, now = Date.now()): boolean {
    const until = this.downUntil.get(id);
    if (until === undefined) return true;
    if (until > now) return false;
    this.downUntil.delete(id);
    return true;
  }

  down(id: string, now = Date.now()): void {
    this.downUntil.set(id, now + this.cooldownMs);
  }

  up(id: string): void {
    this.downUntil.delete(id);
  }
}

/**
 * Runs a tool that has `alternatives` (other tool ids that do the same job: a local copy, another
 * provider, another MCP server): the first healthy backend in order — the tool's own, then each
 * alternative — answers; one that fails with `backend_unavailable` is marked down and the next is
 * tried. Any other failure (the caller's bad arguments, the tool's own error) is final: failing
 * over would only repeat it elsewhere. The result's `_meta` names the tool that answered. When
 * every backend is unavailable the last error is thrown, its details listing what was tried.
 *
 * Alternatives run with the caller's arguments as validated for the tool itself, so they should
 * take the same arguments; one missing from the catalog is skipped.
 */
export async function runWithFailover(
  tool: Tool,
  entry: CatalogEntry,
  args: Record<string, unknown>,
  ctx: ExecutionContext,
  catalog: Pick<Catalog, 'get'>,
  health: BackendHealth,
): Promise<ToolResult> {
  const candidates: CatalogEntry[] = [{ tool, backend: entry.backend }];
  for (const id of alternativesOf(tool)) {
    const alternative = catalog.get(id);
    if (alternative && alternative.tool.id !== tool.id) candidates.push(alternative);
  }
  // Healthy ones first, in the order written; the ones marked down last, in case all are.
  const ordered = [
    ...candidates.filter((c) => health.healthy(c.tool.id)),
    ...candidates.filter((c) => !health.healthy(c.tool.id)),
  ];
  const tried: { tool_id: string; code: string }[] = [];
  let last: GatewayError | undefined;
  for (const candidate of ordered) {
    let raw: unknown;
    try {
      raw = await candidate.backend.execute(candidate.tool, args, ctx);
    } catch (error) {
      const failure = toGatewayError(error, 'execution_failed');
      if (failure.code !== 'backend_unavailable' || ctx.signal.aborted) throw failure;
      health.down(candidate.tool.id);
      tried.push({ tool_id: candidate.tool.id, code: failure.code });
      ctx.log.warn(
        { tool: tool.id, backend: candidate.tool.id, err: failure.message },
        'backend unavailable; failing over',
      );
      last = failure;
      continue;
    }
    health.up(candidate.tool.id);
    const result = normalizeResult(raw);
    const meta = isRecord(result._meta) ? result._meta : {};
    return { ...result, _meta: { ...meta, [ANSWERED_BY_META_KEY]: candidate.tool.id } };
  }
  throw new GatewayError(
    'backend_unavailable',
    `No backend of ${tool.id} is available: ${last?.message ?? 'none'}`,
    {
      retryable: true,
      details: { tried },
      ...(last ? { cause: last } : {}),
    },
  );
}
