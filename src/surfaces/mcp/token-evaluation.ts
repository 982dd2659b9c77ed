import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Catalog } from '../../catalog/catalog.js';
import type { CodeExecutor } from '../../composition/code/code-executor.js';
import { createSearchStack, type SearchSettings } from '../../composition/search-stack.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { TokenCounter } from '../../foundation/ports/token-counter.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { type Dataset, datasetEntries } from '../../sources/dataset/dataset-source.js';
import type { ExposureMode } from './exposure.js';
import { FlatNaming } from './flat-naming.js';
import { createMcpSessionServer } from './mcp-session-server.js';

/** Options of {@link runTokenEvaluation}. */
export interface TokenEvaluationOptions {
  counter: TokenCounter;
  /** Search settings, as in the config (strategy; `bm25` unless given). */
  settings: SearchSettings;
  /** Longest description in search answers (`search.descriptionChars`); the scope's default otherwise. */
  descriptionChars?: number | undefined;
  /** `auto` exposure's explicit budget, as in the config (`exposure.budgetTokens`); absent: auto compares the modes' costs. */
  budgetTokens?: number | undefined;
  /** `exposure.pinned` of the config: tools listed beside the metatools (and counted in their surface). */
  pinned?: readonly string[] | undefined;
  /** The `limit` of each `search_tools` call: a relevant tool must be in these top k to count. */
  k: number;
  /** Code mode, as `serve` has it (on by default): `execute_code` and `code_api` join the surface. */
  code?: CodeExecutor;
  log: Logger;
}

/** Tokens and hits of one exposure mode over a dataset's queries. */
export interface ModeTokens {
  /** Mean tokens an agent reads per query (task). */
  tokensPerTask: number;
  /** Queries whose relevant tool was within what the agent read. */
  hits: number;
  /** Total tokens over all queries / hits (null when nothing was found). */
  tokensPerSuccess: number | null;
}

/** What {@link runTokenEvaluation} reports. */
export interface TokenEvaluationReport {
  encoding: string;
  /** Whether the metatools surface included code mode's `execute_code` and `code_api`. */
  codeMode: boolean;
  tools: number;
  queries: number;
  k: number;
  /** `tools/list` of every tool, flat; and per tool. */
  flatListTokens: number;
  flatTokensPerTool: number;
  /** `tools/list` in metatools exposure (pinned tools included): the fixed cost of every turn. */
  metatoolSurfaceTokens: number;
  /** Dataset ids of the pinned tools `tools/list` shows beside the metatools. */
  pinned: string[];
  /** Means per query of the `search_tools` answer and the `describe_tool` (schema) of its top result. */
  searchAnswerTokens: number;
  describeTokens: number;
  /** What `auto` chose for this catalog. */
  autoChose: 'flat' | 'metatools';
  modes: Record<ExposureMode, ModeTokens>;
  /**
   * Catalog size where flat and metatools cost the same per task: metatools per task /
   * flat tokens per tool (null for an empty catalog).
   */
  breakEvenTools: number | null;
  /** One line per query. */
  runs: { id: string; metatoolsTokens: number; found: boolean; top?: string; pinned?: true }[];
}

/** An MCP client connected in memory to a session server of `mode`, built as the gateway builds it. */
async function connect(
  scope: ToolScope,
  catalog: Catalog,
  mode: ExposureMode,
  options: TokenEvaluationOptions,
) {
  const { server, dispose } = createMcpSessionServer({
    scope,
    ...(options.code ? { code: options.code } : {}),
    catalog,
    validator: new SchemaValidator(),
    exposure: { mode, budgetTokens: options.budgetTokens, counter: options.counter, pinned: options.pinned },
    serverInfo: { name: 'aperture-eval', version: '0' },
    caller: { identity: 'eval' },
    log: options.log,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'eval-tokens', version: '0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      dispose();
    },
  };
}

/** The text a model reads of a tool result: its content items' text. */
function resultText(result: CallToolResult): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : JSON.stringify(item))).join('\n');
}

/**
 * Measures, per query of a dataset, the tokens an agent reads under each exposure, through real MCP
 * session servers (the code `serve` runs) spoken to by the SDK client over an in-memory transport:
 * flat — the `tools/list` of every tool; metatools — the metatools' `tools/list`, the `search_tools`
 * answer for the query (limit k), and `describe_tool` (schema level) of its top result; auto —
 * whichever of the two the gateway's `auto` exposure lists for this catalog. A query is a hit when
 * one of its relevant tools was within what was read: always in flat, in the top k of the search
 * answer in metatools.
 */
export async function runTokenEvaluation(
  dataset: Dataset,
  options: TokenEvaluationOptions,
): Promise<TokenEvaluationReport> {
  const catalog = new Catalog();
  const { entries, datasetIdOf } = datasetEntries(dataset.tools);
  catalog.replaceSource('dataset', entries);
  const stack = createSearchStack({ catalog, settings: options.settings, store: new MemoryStateStore() });
  stack.search.refresh();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const scope = new ToolScope({
    catalog,
    search: stack.search,
    pipeline,
    maxChainSteps: 1,
    ...(options.descriptionChars === undefined ? {} : { descriptionChars: options.descriptionChars }),
  });
  const count = (value: unknown) =>
    options.counter.count(typeof value === 'string' ? value : JSON.stringify(value));

  const flat = await connect(scope, catalog, 'flat', options);
  const meta = await connect(scope, catalog, 'metatools', options);
  const auto = await connect(scope, catalog, 'auto', options);
  try {
    const flatList = (await flat.client.listTools()).tools;
    const metaList = (await meta.client.listTools()).tools;
    const autoList = (await auto.client.listTools()).tools;
    const flatListTokens = count(flatList);
    const metatoolSurfaceTokens = count(metaList);
    // auto lists the metatools (and the pinned tools), or every tool directly as well: flat when
    // it lists every tool of the catalog by its flat name.
    const autoNames = new Set(autoList.map((t) => t.name));
    const autoChose =
      flatList.length > 0 && flatList.every((t) => autoNames.has(t.name)) ? 'flat' : 'metatools';
    const autoListTokens = count(autoList);
    // Pinned tools are read with the metatools' list: a query for one of them needs no search.
    const byFlatName = new FlatNaming().assign(catalog.tools());
    const pinnedIds = new Set<string>();
    for (const entry of metaList) {
      const tool = byFlatName.get(entry.name);
      if (tool) pinnedIds.add(datasetIdOf.get(tool.id) ?? tool.id);
    }

    const runs: TokenEvaluationReport['runs'] = [];
    let searchSum = 0;
    let describeSum = 0;
    let searched = 0;
    for (const query of dataset.queries) {
      if (query.relevant.some((id) => pinnedIds.has(id))) {
        runs.push({ id: query.id, metatoolsTokens: metatoolSurfaceTokens, found: true, pinned: true });
        continue;
      }
      const answer = (await meta.client.callTool({
        name: 'search_tools',
        arguments: { query: query.query, limit: options.k },
      })) as CallToolResult;
      const searchTokens = count(resultText(answer));
      const structured = answer.structuredContent as { tools?: { id: string }[] } | undefined;
      const ids = (structured?.tools ?? []).map((t) => t.id);
      const relevant = new Set(query.relevant);
      const found = ids.slice(0, options.k).some((id) => relevant.has(datasetIdOf.get(id) ?? id));
      let describeTokens = 0;
      const top = ids[0];
      if (top !== undefined) {
        const described = (await meta.client.callTool({
          name: 'describe_tool',
          arguments: { tool_id: top, detail_level: 'schema' },
        })) as CallToolResult;
        describeTokens = count(resultText(described));
      }
      searched += 1;
      searchSum += searchTokens;
      describeSum += describeTokens;
      runs.push({
        id: query.id,
        metatoolsTokens: metatoolSurfaceTokens + searchTokens + describeTokens,
        found,
        ...(top !== undefined ? { top: datasetIdOf.get(top) ?? top } : {}),
      });
    }
    const n = dataset.queries.length;
    const mean = (sum: number) => (n === 0 ? 0 : Math.round((sum / n) * 10) / 10);
    const mode = (total: number, hits: number): ModeTokens => ({
      tokensPerTask: mean(total),
      hits,
      tokensPerSuccess: hits === 0 ? null : Math.round((total / hits) * 10) / 10,
    });
    const metaTotal = runs.reduce((sum, r) => sum + r.metatoolsTokens, 0);
    const metaHits = runs.filter((r) => r.found).length;
    const modes: Record<ExposureMode, ModeTokens> = {
      flat: mode(flatListTokens * n, n),
      metatools: mode(metaTotal, metaHits),
      auto:
        autoChose === 'flat'
          ? mode(autoListTokens * n, n)
          : mode(metaTotal - (metatoolSurfaceTokens - autoListTokens) * n, metaHits),
    };
    const flatTokensPerTool = catalog.size === 0 ? 0 : flatListTokens / catalog.size;
    return {
      encoding: options.counter.encoding,
      codeMode: options.code !== undefined,
      tools: catalog.size,
      queries: n,
      k: options.k,
      flatListTokens,
      flatTokensPerTool: Math.round(flatTokensPerTool * 10) / 10,
      metatoolSurfaceTokens,
      pinned: [...pinnedIds].sort(),
      // Means over the queries that searched (a query for a pinned tool reads neither answer).
      searchAnswerTokens: searched === 0 ? 0 : Math.round((searchSum / searched) * 10) / 10,
      describeTokens: searched === 0 ? 0 : Math.round((describeSum / searched) * 10) / 10,
      autoChose,
      modes,
      // Flat costs f tokens per tool, metatools a fixed M per task whatever the size: equal at M / f.
      breakEvenTools:
        flatTokensPerTool === 0 || n === 0 ? null : Math.round(mean(metaTotal) / flatTokensPerTool),
      runs,
    };
  } finally {
    await Promise.all([flat.close(), meta.close(), auto.close()]);
    stack.close();
  }
}
