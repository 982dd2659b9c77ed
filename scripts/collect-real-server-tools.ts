#!/usr/bin/env node
/**
 * Collects the tools of real, published MCP servers into
 * `test/fixtures/trust/real-servers/tools.json`: the poisoning detector's benign corpus of
 * catalogs people actually run (a detector tuned only on hand-written tools flagged Chrome
 * DevTools MCP's `new_page`).
 *
 * Each server is installed beforehand into its own folder under PREFIX (outside the repository):
 *
 *   npm install --prefix PREFIX/pk/<name with / → + and @ → _> --ignore-scripts <package>
 *
 * then started over stdio with the official client (`@modelcontextprotocol/client`) and harmless
 * arguments or placeholder credentials (listing tools calls no backend), and its `tools/list` is
 * saved: name, title, description, input schema, package and version.
 *
 *   npx tsx scripts/collect-real-server-tools.ts PREFIX [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** The repository root: this script sits in `scripts/`. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'test/fixtures/trust/real-servers/tools.json');

/** A server to list: its package, and what it needs to start without touching anything real. */
export interface RealServer {
  package: string;
  /** The bin to run when the package has several. */
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Needs a newer Node than the repository's (run with the `node` devDependency's binary). */
  node22?: boolean;
}

/** Placeholder credential: shaped like a key, valid for nothing. */
const FAKE = 'placeholder-not-a-real-key';

export const REAL_SERVERS: readonly RealServer[] = [
  { package: '@playwright/mcp' },
  { package: 'chrome-devtools-mcp', node22: true },
  { package: '@bytebase/dbhub', args: ['--transport', 'stdio', '--demo'] },
  { package: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  { package: '@modelcontextprotocol/server-filesystem', args: ['/tmp'] },
  { package: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: '/tmp/corpus-memory.json' } },
  { package: '@modelcontextprotocol/server-sequential-thinking' },
  { package: '@modelcontextprotocol/server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: FAKE } },
  { package: '@modelcontextprotocol/server-puppeteer' },
  { package: '@modelcontextprotocol/server-brave-search', env: { BRAVE_API_KEY: FAKE } },
  {
    package: '@modelcontextprotocol/server-slack',
    env: { SLACK_BOT_TOKEN: FAKE, SLACK_TEAM_ID: 'T00000000' },
  },
  { package: '@modelcontextprotocol/server-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: FAKE } },
  { package: '@modelcontextprotocol/server-google-maps', env: { GOOGLE_MAPS_API_KEY: FAKE } },
  { package: '@modelcontextprotocol/server-postgres', args: ['postgresql://localhost:1/none'] },
  { package: '@modelcontextprotocol/server-redis', args: ['redis://localhost:1'] },
  { package: '@modelcontextprotocol/server-everart', env: { EVERART_API_KEY: FAKE } },
  {
    package: '@modelcontextprotocol/server-aws-kb-retrieval',
    env: { AWS_ACCESS_KEY_ID: FAKE, AWS_SECRET_ACCESS_KEY: FAKE, AWS_REGION: 'us-east-1' },
  },
  { package: '@modelcontextprotocol/server-gdrive' },
  { package: '@upstash/context7-mcp' },
  { package: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: FAKE } },
  { package: 'tavily-mcp', env: { TAVILY_API_KEY: FAKE } },
  { package: 'exa-mcp-server', env: { EXA_API_KEY: FAKE } },
  { package: '@notionhq/notion-mcp-server', env: { NOTION_TOKEN: FAKE } },
  { package: 'mongodb-mcp-server' },
  { package: '@wonderwhy-er/desktop-commander' },
  { package: 'mcp-server-kubernetes' },
  { package: '@executeautomation/playwright-mcp-server' },
  { package: '@kimtaeyoon83/mcp-server-youtube-transcript' },
  {
    package: '@browserbasehq/mcp-server-browserbase',
    env: { BROWSERBASE_API_KEY: FAKE, BROWSERBASE_PROJECT_ID: FAKE, GEMINI_API_KEY: FAKE },
  },
  { package: '@circleci/mcp-server-circleci', env: { CIRCLECI_TOKEN: FAKE } },
  { package: '@stripe/mcp', args: ['--tools=all', '--api-key=sk_test_placeholder'] },
  { package: 'figma-developer-mcp', args: ['--stdio', `--figma-api-key=${FAKE}`] },
  {
    package: '@benborla29/mcp-server-mysql',
    env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '1', MYSQL_USER: 'none', MYSQL_PASS: '', MYSQL_DB: 'none' },
  },
  { package: '@agentdeskai/browser-tools-mcp' },
  { package: '@supabase/mcp-server-supabase', args: ['--access-token', FAKE] },
  { package: '@sentry/mcp-server', args: [`--access-token=${FAKE}`] },
  { package: '@heroku/mcp-server', env: { HEROKU_API_KEY: FAKE } },
  { package: '@apify/actors-mcp-server', env: { APIFY_TOKEN: FAKE } },
  { package: '@hubspot/mcp-server', env: { PRIVATE_APP_ACCESS_TOKEN: FAKE } },
  { package: '@magicuidesign/mcp' },
];

/** One listed tool, as saved. */
export interface RealServerTool {
  id: string;
  package: string;
  title?: string;
  description: string;
  inputSchema: unknown;
}

function folderOf(prefix: string, pkg: string): string {
  return path.join(
    prefix,
    'pk',
    pkg.replace(/[/@]/g, (c) => (c === '/' ? '+' : '_')),
  );
}

function binOf(dir: string, server: RealServer): { script: string; version: string } {
  const root = path.join(dir, 'node_modules', server.package);
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
    bin?: string | Record<string, string>;
  };
  const bin =
    typeof manifest.bin === 'string'
      ? manifest.bin
      : manifest.bin === undefined
        ? undefined
        : (manifest.bin[server.bin ?? ''] ?? Object.values(manifest.bin)[0]);
  if (bin === undefined) throw new Error(`${server.package} has no bin`);
  return { script: path.join(root, bin), version: manifest.version };
}

async function list(prefix: string, server: RealServer): Promise<RealServerTool[]> {
  const dir = folderOf(prefix, server.package);
  const { script, version } = binOf(dir, server);
  const node = server.node22 ? path.join(ROOT, 'node_modules/node/bin/node') : process.execPath;
  const client = new Client({ name: 'corpus', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: node,
    args: [script, ...(server.args ?? [])],
    env: { PATH: process.env.PATH ?? '', HOME: path.join(prefix, 'home'), ...server.env },
    cwd: dir,
    stderr: 'ignore',
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('timed out after 30 s')), 30_000).unref(),
  );
  try {
    await Promise.race([client.connect(transport), timeout]);
    const tools: RealServerTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await Promise.race([client.listTools(cursor === undefined ? {} : { cursor }), timeout]);
      for (const tool of page.tools) {
        tools.push({
          id: `${server.package}:${tool.name}`,
          package: `${server.package}@${version}`,
          ...(tool.title === undefined ? {} : { title: tool.title }),
          description: tool.description ?? '',
          inputSchema: tool.inputSchema,
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  } finally {
    await client.close().catch(() => {});
  }
}

async function main(): Promise<void> {
  const prefix = process.argv[2];
  if (prefix === undefined) throw new Error('usage: collect-real-server-tools.ts PREFIX [--write]');
  const only = process.argv.slice(3).filter((a) => !a.startsWith('--'));
  const all: RealServerTool[] = [];
  for (const server of REAL_SERVERS) {
    if (only.length > 0 && !only.includes(server.package)) continue;
    try {
      const tools = await list(prefix, server);
      console.log(`${server.package}: ${tools.length} tools`);
      all.push(...tools);
    } catch (error) {
      console.log(`${server.package}: SKIPPED (${(error as Error).message.split('\n')[0]})`);
    }
  }
  console.log(`total: ${all.length} tools`);
  if (process.argv.includes('--write')) {
    writeFileSync(OUT, `${JSON.stringify(all, null, 2)}\n`);
    console.log(`wrote ${OUT}`);
  }
  process.exit(0);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) await main();
