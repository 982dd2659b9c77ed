#!/usr/bin/env node
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import {
  GATEWAY_CLI,
  machine,
  ms,
  option,
  ROOT,
  runIfMain,
  spawnTracked,
  stopChild,
  summarize,
  table,
  waitForStderr,
} from './lib/common.js';
import { syntheticQueries, syntheticTools } from './lib/synthetic-catalog.js';

/** Goal of the issue: search-as-you-type answers within this time. */
export const TARGET_SEARCH_MS = 100;
/** Goal of the issue: the first load, gzipped. */
export const TARGET_BUNDLE_KB = 300;

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (candidate) => candidate && existsSync(candidate),
);

/** A config whose tool module defines `count` synthetic tools (built-ins off). */
function catalogConfig(dir: string, count: number): string {
  const tools = syntheticTools(count);
  const body = tools
    .map(
      (tool, i) =>
        `export const t${i} = ${JSON.stringify({
          namespace: tool.namespace,
          name: tool.name,
          ...(tool.title ? { title: tool.title } : {}),
          description: tool.description,
          inputSchema: tool.inputSchema,
          tags: tool.tags,
        }).replace(/}$/, ', handler: () => "ok" }')};`,
    )
    .join('\n');
  const module = path.join(dir, `tools-${count}.mjs`);
  writeFileSync(module, body);
  const config = path.join(dir, `aperture-${count}.yaml`);
  writeFileSync(
    config,
    `tools: { builtin: false, modules: [${JSON.stringify(module)}] }\nstate: { driver: memory }\nobservability: { logLevel: warn }\n`,
  );
  return config;
}

/**
 * Gzipped size of the console's first load — the page, its styles, the entry script and the chunks
 * the entry imports statically (not those it imports on demand, such as the code editor) — and of
 * every file.
 */
function bundleSizes(): { firstLoadKB: number; lazyKB: number; files: [string, number, number][] } {
  const dir = path.join(ROOT, 'dist', 'console');
  const files = readdirSync(dir).map((file): [string, number, number] => {
    const bytes = readFileSync(path.join(dir, file));
    return [file, bytes.length / 1024, gzipSync(bytes).length / 1024];
  });
  const entry = readFileSync(path.join(dir, 'console.js'), 'utf8');
  const eager = new Set(['index.html', 'console.js', 'console.css']);
  for (const match of entry.matchAll(/(?:from|import)\s*"\.\/([\w-]+\.js)"/g)) eager.add(match[1] as string);
  const sum = (pick: (file: string) => boolean) =>
    files.filter(([file]) => pick(file)).reduce((total, [, , gz]) => total + gz, 0);
  return { firstLoadKB: sum((f) => eager.has(f)), lazyKB: sum((f) => !eager.has(f)), files };
}

export async function run(options: any = {}) {
  const sizes: number[] = (options.tools ?? option('tools', '20,5000')).split(',').map(Number);
  const loads = options.loads ?? option('loads', 5);
  const queryCount = options.queries ?? option('queries', 30);
  const results: Record<string, any> = {
    config: { sizes, loads, queries: queryCount },
    machine: machine(),
    bundle: bundleSizes(),
  };
  if (!CHROMIUM) {
    results.skipped = 'chromium is not installed (apt-get install chromium)';
    return results;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'aperture-console-bench-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  results.rows = [];
  try {
    for (const size of sizes) {
      const gateway = spawnTracked(process.execPath, [
        GATEWAY_CLI,
        'serve',
        '--config',
        catalogConfig(dir, size),
        '--port',
        '0',
      ]);
      try {
        const { match } = await waitForStderr(gateway, /listening on (http:\/\/\S+)\/mcp/, 60_000);
        const url = match[1] as string;
        const page = await browser.newPage();
        // Time to interactive: navigation start until the first tools are listed and the search
        // box takes input; then until the whole catalog is listed (the count line says "N of N
        // tools" without "loading more" once every page of tools arrived).
        const tti: number[] = [];
        const full: number[] = [];
        for (let i = 0; i < loads; i += 1) {
          const started = performance.now();
          await page.goto(url);
          await page.locator('.row').first().waitFor({ timeout: 120_000 });
          await page.getByLabel('Search tools').focus();
          tti.push(performance.now() - started);
          await page.getByText(new RegExp(`^${size} of ${size} tools$`)).waitFor({ timeout: 120_000 });
          full.push(performance.now() - started);
        }
        // Virtualised: only the rows in view (and a few either side) exist, however long the list.
        const rowsInDom = await page.locator('.row').count();
        // Search as you type: from the input event to the ranked results on screen.
        const latencies: number[] = [];
        for (const query of syntheticQueries(queryCount, 11)) {
          const text = query.slice(0, 60);
          const started = performance.now();
          await page.getByLabel('Search tools').fill(text);
          await page.getByText(`results for “${text}”`).waitFor({ timeout: 10_000 });
          latencies.push(performance.now() - started);
        }
        results.rows.push({
          size,
          tti: summarize(tti),
          full: summarize(full),
          search: summarize(latencies),
          rowsInDom,
        });
        await page.close();
      } finally {
        await stopChild(gateway);
      }
    }
  } finally {
    await browser.close();
  }
  return results;
}

export function render(results: Record<string, any>): string {
  const lines = ['## Web console: bundle, time to interactive, search as you type', ''];
  const { bundle } = results;
  lines.push(
    `First load (page, styles, entry script and the chunks it imports), gzipped: **${bundle.firstLoadKB.toFixed(1)} KB** (goal ≤ ${TARGET_BUNDLE_KB} KB); loaded on demand (the code editor): ${bundle.lazyKB.toFixed(1)} KB`,
    '',
    table(
      ['file', 'KB', 'KB gzipped'],
      bundle.files.map(([file, kb, gz]: [string, number, number]) => [file, kb.toFixed(1), gz.toFixed(1)]),
    ),
    '',
  );
  if (results.skipped) {
    lines.push(`Browser figures skipped: ${results.skipped}`);
    return lines.join('\n');
  }
  const base = results.rows[0];
  lines.push(
    table(
      [
        'tools',
        'TTI p50 ms',
        'TTI ratio',
        'all listed p50 ms',
        'ratio',
        'search p50 ms',
        'search p95 ms',
        'search p95 ratio',
        'rows in the DOM, all listed',
      ],
      results.rows.map((row: any) => [
        row.size,
        ms(row.tti.p50, 0),
        (row.tti.p50 / base.tti.p50).toFixed(2),
        ms(row.full.p50, 0),
        (row.full.p50 / base.full.p50).toFixed(2),
        ms(row.search.p50, 1),
        ms(row.search.p95, 1),
        (row.search.p95 / base.search.p95).toFixed(2),
        row.rowsInDom,
      ]),
    ),
  );
  return lines.join('\n');
}

runIfMain(import.meta.url, run, render);
