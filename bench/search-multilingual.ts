#!/usr/bin/env node
/**
 * Search across languages and ambiguity, on the real tools of 32 npm MCP servers
 * (test/fixtures/trust/real-servers/tools.json, 402 tools) and the hand-written requests of
 * test/fixtures/search/multilingual-queries.json: each intent in English and ten other languages,
 * and ambiguous requests. The ranking of before the lexicon (`languages: []`, no verb stage, no
 * diversification) runs side by side with each stage added, in one run (docs/SEARCH.md).
 *
 *   npx tsx bench/search-multilingual.ts
 *
 * R@5 here: a query counts as found when one of its tools is in the first five. For ambiguous
 * requests, "servers@5" is the share of the servers with a plausible tool that have one in the
 * first five.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Catalog } from '../src/catalog/catalog.js';
import { ToolSearch, type ToolSearchOptions } from '../src/discovery/tool-search.js';
import type { Tool } from '../src/foundation/model/tool.js';
import { machine, ROOT, runIfMain, table } from './lib/common.js';

const TOOLS = path.join(ROOT, 'test', 'fixtures', 'trust', 'real-servers', 'tools.json');
const QUERIES = path.join(ROOT, 'test', 'fixtures', 'search', 'multilingual-queries.json');
const LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'zh', 'ja', 'ko', 'ru'] as const;
const K = 5;

/** The variants measured side by side; the first is the ranking of before this work. */
export const VARIANTS: { key: string; options: ToolSearchOptions }[] = [
  {
    key: 'before (no lexicon, no verb stage, no diversification)',
    options: { languages: [], verbWeight: 0, diversify: false },
  },
  { key: '+ lexicon', options: { verbWeight: 0, diversify: false } },
  { key: '+ lexicon + verb stage', options: { diversify: false } },
  { key: 'default (+ diversification)', options: {} },
];

interface QuerySet {
  intents: { id: string; expected: string[]; queries: Record<string, string> }[];
  ambiguous: { query: string; expected: string[] }[];
}

/**
 * The namespace a gateway config would give a package: its name without scope and the usual
 * `mcp`/`server` affixes (`@modelcontextprotocol/server-github` → github), or its scope when
 * nothing else is left (`@sentry/mcp-server` → sentry). Catalog namespaces are plain words.
 */
export function namespaceOf(pkg: string): string {
  const [scope, rest] = pkg.startsWith('@') ? pkg.slice(1).split('/') : [undefined, pkg];
  const stripped = (rest ?? '')
    .replace(/^(mcp-server-|server-|mcp-)/, '')
    .replace(/(-mcp-server|-mcp|-server)$/, '')
    .replace(/^(mcp|server)$/, '');
  if (scope === 'executeautomation') return 'ea-playwright';
  return stripped || scope || pkg;
}

/** A tool id of the fixtures (`package:name`) as the catalog has it (`namespace:name`). */
export function catalogId(id: string): string {
  const at = id.lastIndexOf(':');
  return `${namespaceOf(id.slice(0, at))}:${id.slice(at + 1)}`;
}

/** The real servers' tools as a catalog would hold them. */
export function realServersCatalog(): Catalog {
  const raw = JSON.parse(readFileSync(TOOLS, 'utf8')) as {
    id: string;
    description?: string;
    inputSchema?: Tool['inputSchema'];
  }[];
  const catalog = new Catalog({ debounceMs: 0 });
  const entries = raw.map((entry) => {
    const at = entry.id.lastIndexOf(':');
    const namespace = namespaceOf(entry.id.slice(0, at));
    const name = entry.id.slice(at + 1);
    const tool: Tool = {
      id: `${namespace}:${name}`,
      namespace,
      name,
      description: entry.description ?? '',
      inputSchema: entry.inputSchema ?? { type: 'object' },
      annotations: {},
      tags: [],
      metadata: {},
      examples: [],
      origin: { sourceId: 'real-servers', kind: 'local', originalName: name },
    };
    return { tool, backend: { execute: async () => null } };
  });
  catalog.replaceSource('real-servers', entries);
  catalog.flush();
  return catalog;
}

export async function run() {
  const set = JSON.parse(readFileSync(QUERIES, 'utf8')) as QuerySet;
  for (const item of [...set.intents, ...set.ambiguous]) item.expected = item.expected.map(catalogId);
  const catalog = realServersCatalog();
  const results: Record<string, any> = { machine: machine(), tools: catalog.tools().length, variants: [] };
  for (const variant of VARIANTS) {
    const search = new ToolSearch(catalog, { strategy: 'bm25', ...variant.options });
    search.refresh();
    const top = async (query: string) =>
      (await search.search({ query, limit: K })).hits.map((hit) => hit.tool.id);
    const byLanguage: Record<string, { found: number; total: number }> = {};
    const misses: string[] = [];
    for (const intent of set.intents) {
      for (const language of LANGUAGES) {
        const query = intent.queries[language];
        if (query === undefined) continue;
        const ranked = await top(query);
        const found = intent.expected.some((id) => ranked.includes(id));
        const cell = byLanguage[language] ?? { found: 0, total: 0 };
        byLanguage[language] = cell;
        cell.total += 1;
        if (found) cell.found += 1;
        else misses.push(`${language} ${intent.id}: ${query} → ${ranked.slice(0, 3).join(', ')}`);
      }
    }
    let coverage = 0;
    let anyFound = 0;
    for (const item of set.ambiguous) {
      const ranked = await top(item.query);
      const servers = new Set(item.expected.map((id) => id.slice(0, id.lastIndexOf(':'))));
      const covered = new Set(
        item.expected.filter((id) => ranked.includes(id)).map((id) => id.slice(0, id.lastIndexOf(':'))),
      );
      coverage += covered.size / servers.size;
      if (covered.size > 0) anyFound += 1;
    }
    const foreign = LANGUAGES.filter((l) => l !== 'en').reduce(
      (sum, l) => ({
        found: sum.found + (byLanguage[l]?.found ?? 0),
        total: sum.total + (byLanguage[l]?.total ?? 0),
      }),
      { found: 0, total: 0 },
    );
    results.variants.push({
      key: variant.key,
      byLanguage,
      foreign,
      ambiguous: {
        queries: set.ambiguous.length,
        serversAt5: (100 * coverage) / set.ambiguous.length,
        recallAt5: (100 * anyFound) / set.ambiguous.length,
      },
      misses,
    });
  }
  return results;
}

const pct = (cell: { found: number; total: number } | undefined) =>
  cell && cell.total > 0 ? ((100 * cell.found) / cell.total).toFixed(1) : '—';

export function render(results: any) {
  const rows = results.variants.map((v: any) => [
    v.key,
    `**${pct(v.foreign)}**`,
    pct(v.byLanguage.en),
    ...LANGUAGES.filter((l) => l !== 'en').map((l) => pct(v.byLanguage[l])),
    v.ambiguous.serversAt5.toFixed(1),
    v.ambiguous.recallAt5.toFixed(1),
  ]);
  return [
    `## Multilingual and ambiguous requests (${results.tools} real tools, ${results.machine.git}, ${results.machine.date.slice(0, 10)})`,
    '',
    table(
      [
        'variant',
        'other languages R@5',
        'en R@5',
        ...LANGUAGES.filter((l) => l !== 'en'),
        'ambiguous servers@5',
        'ambiguous R@5',
      ],
      rows,
    ),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
