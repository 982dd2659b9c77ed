#!/usr/bin/env node
/**
 * What MCP Apps cost a flat `tools/list` of 1,000 tools from downstream servers that are
 * namespaced (two or more configured): each tool with an app gets its `_meta.ui.resourceUri` (and
 * the flat `ui/resourceUri`) renamed `ui://<namespace>/…`, and app-only tools are left out of
 * the list. In process: a fresh `Exposure` per list (what a catalog change costs: the view is
 * kept per catalog version, so a list of an unchanged catalog reuses it) plus the answer's JSON.
 *
 * Variants, measured side by side over the same synthetic catalog:
 *   plain          no tool has app metadata; no resource naming (the baseline)
 *   plain+naming   the same catalog with the resource naming given (what every gateway pays now)
 *   apps-10% unnamed  the apps' catalog below, served without the resource naming (one server):
 *                  the metadata's own cost (larger entries, hidden tools), without the rewrite
 *   apps-10%       a tenth of the tools have an app (`_meta.ui.resourceUri` and the flat key),
 *                  a twentieth are app-only (`visibility: ["app"]`): renamed and hidden
 *   apps-100% unnamed  every tool has an app, served without the resource naming
 *   apps-100%      every tool has an app: the rewrite's worst case
 *   cached         apps-10%, the view reused (an unchanged catalog): `tools/list` as most calls see it
 *
 * Options: mcp-apps-n (300 lists per variant), json-out.
 */
import { Catalog } from '../src/catalog/catalog.js';
import { ToolScope } from '../src/composition/tool-scope.js';
import { ToolSearch } from '../src/discovery/tool-search.js';
import { RunPipeline } from '../src/execution/run-pipeline.js';
import type { Tool } from '../src/foundation/model/tool.js';
import { toolUiOf } from '../src/foundation/model/tool-ui.js';
import { SchemaValidator } from '../src/foundation/schema/schema-validator.js';
import { Exposure } from '../src/surfaces/mcp/exposure.js';
import { METATOOLS } from '../src/surfaces/mcp/metatools.js';
import { ResourceNaming } from '../src/surfaces/mcp/resource-naming.js';
import { machine, ms, option, runIfMain, summarize, table } from './lib/common.js';
import { syntheticTools } from './lib/synthetic-catalog.js';

const SIZE = 1000;

/** The catalog's tools, every `every`-th with an app and every `2 × every`-th app-only. */
function withApps(tools: readonly Tool[], every: number): Tool[] {
  return tools.map((tool, i) => {
    if (every === 0 || i % every !== 0) return tool;
    const appOnly = i % (every * 2) === 0 && every > 1;
    const uri = `ui://${tool.namespace}/${tool.name}.html`;
    const meta = appOnly
      ? { ui: { visibility: ['app'] } }
      : { ui: { resourceUri: uri }, 'ui/resourceUri': uri };
    const ui = toolUiOf(meta);
    return { ...tool, meta, ...(ui ? { ui } : {}) };
  });
}

function scopeOf(tools: readonly Tool[]): ToolScope {
  const catalog = new Catalog();
  catalog.replaceSource(
    'bench',
    tools.map((tool) => ({ tool, backend: { execute: async () => 'ok' } })),
  );
  catalog.flush();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  return new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
}

export async function runMcpAppsListing() {
  const n = option('mcp-apps-n', 300);
  const base = syntheticTools(SIZE);
  const namespaces = [...new Set(base.map((t) => t.namespace))];
  const naming = new ResourceNaming(namespaces.map((namespace) => ({ namespace, prefix: true })));
  const scopes = {
    plain: scopeOf(base),
    tenth: scopeOf(withApps(base, 10)),
    all: scopeOf(withApps(base, 1)),
  };
  const cached = new Exposure(scopes.tenth, METATOOLS, { mode: 'flat' }, { resources: naming });
  const variants: Record<string, () => number> = {
    plain: () =>
      JSON.stringify({ tools: new Exposure(scopes.plain, METATOOLS, { mode: 'flat' }).view().tools }).length,
    'plain+naming': () =>
      JSON.stringify({
        tools: new Exposure(scopes.plain, METATOOLS, { mode: 'flat' }, { resources: naming }).view().tools,
      }).length,
    'apps-10% unnamed': () =>
      JSON.stringify({ tools: new Exposure(scopes.tenth, METATOOLS, { mode: 'flat' }).view().tools }).length,
    'apps-10%': () =>
      JSON.stringify({
        tools: new Exposure(scopes.tenth, METATOOLS, { mode: 'flat' }, { resources: naming }).view().tools,
      }).length,
    'apps-100% unnamed': () =>
      JSON.stringify({ tools: new Exposure(scopes.all, METATOOLS, { mode: 'flat' }).view().tools }).length,
    'apps-100%': () =>
      JSON.stringify({
        tools: new Exposure(scopes.all, METATOOLS, { mode: 'flat' }, { resources: naming }).view().tools,
      }).length,
    cached: () => JSON.stringify({ tools: cached.view().tools }).length,
  };
  const listed = {
    plain: new Exposure(scopes.plain, METATOOLS, { mode: 'flat' }).view().tools.length,
    tenth: cached.view().tools.length,
    all: new Exposure(scopes.all, METATOOLS, { mode: 'flat' }, { resources: naming }).view().tools.length,
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const keys = Object.keys(variants);
  // Warm-up: the JIT sees every variant before anything is timed.
  for (let i = 0; i < 20; i++) for (const key of keys) variants[key]?.();
  for (let i = 0; i < n; i++) {
    // Rotated so that drift in the machine's load hits all variants alike.
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(k + i) % keys.length] as string;
      const started = performance.now();
      variants[key]?.();
      samples[key]?.push(performance.now() - started);
    }
    if (i % 20 === 0) process.stderr.write(`\rmcp-apps-listing ${i + 1}/${n}`);
  }
  process.stderr.write('\n');
  const summaries = Object.fromEntries(Object.entries(samples).map(([key, s]) => [key, summarize(s)]));
  return { machine: machine(), tools: SIZE, listed, summaries };
}

export function renderMcpAppsListing(results: Awaited<ReturnType<typeof runMcpAppsListing>>): string {
  const labels: Record<string, string> = {
    plain: 'no app metadata, no resource naming (baseline)',
    'plain+naming': 'no app metadata, resource naming given',
    'apps-10% unnamed': '10% with an app, 5% app-only (hidden), not renamed',
    'apps-10%': '10% with an app (renamed), 5% app-only (hidden)',
    'apps-100% unnamed': 'every tool with an app, not renamed',
    'apps-100%': 'every tool with an app (renamed)',
    cached: '10% with apps, view reused (unchanged catalog)',
  };
  const base = results.summaries.plain?.p50 ?? 1;
  return [
    `### A flat tools/list of ${results.tools} tools (${results.listed.plain} listed plain, ${results.listed.tenth} with 5% app-only hidden)`,
    '',
    table(
      ['variant', 'lists', 'p50 ms', 'p95 ms', '× baseline p50'],
      Object.entries(results.summaries).map(([key, s]) => [
        labels[key] ?? key,
        s.n,
        ms(s.p50, 3),
        ms(s.p95, 3),
        (s.p50 / base).toFixed(2),
      ]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, runMcpAppsListing, renderMcpAppsListing);
