import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  type DisposableClient,
  ROOT,
  startHttpGateway,
  stopProcess,
} from './gateway-process.js';

/**
 * OpenTelemetry export of a served gateway (`aperture serve`), checked by a collector stand-in of
 * this file's own: an HTTP server taking OTLP/HTTP JSON on `/v1/traces` and `/v1/metrics`,
 * decoding what it gets and checking spans and metrics by name. Sampling at 1 and 0; the stdout
 * exporter through the CLI too.
 */

const MODULES = path.join(ROOT, 'test/fixtures/tools/*.ts');

interface Attr {
  key: string;
  value?: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
type Flat = Record<string, string | number | boolean | undefined>;

function flat(list: Attr[] | undefined): Flat {
  return Object.fromEntries(
    (list ?? []).map((a) => [
      a.key,
      a.value?.stringValue ??
        (a.value?.intValue !== undefined ? Number(a.value.intValue) : undefined) ??
        a.value?.doubleValue ??
        a.value?.boolValue,
    ]),
  );
}

interface Point {
  attributes: Flat;
  /** Sum and gauge points: the value; histogram points: the count. */
  value: number;
}

/** The collector stand-in: every span by name, every metric's latest points by name. */
interface Collector {
  url: string;
  spans: { name: string; attributes: Flat }[];
  metrics: Map<string, Point[]>;
  paths: string[];
  close(): Promise<void>;
}

interface DataPoint {
  attributes?: Attr[];
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
}
interface MetricJson {
  name: string;
  sum?: { dataPoints?: DataPoint[] };
  gauge?: { dataPoints?: DataPoint[] };
  histogram?: { dataPoints?: DataPoint[] };
}

async function startCollector(): Promise<Collector> {
  const spans: Collector['spans'] = [];
  const metrics = new Map<string, Point[]>();
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      if (!req.headers['content-type']?.includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/v1/traces') {
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? []) spans.push({ name: s.name, attributes: flat(s.attributes) });
      } else if (req.url === '/v1/metrics') {
        for (const rm of body.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of (sm.metrics ?? []) as MetricJson[]) {
              const points = m.sum?.dataPoints ?? m.gauge?.dataPoints ?? m.histogram?.dataPoints ?? [];
              metrics.set(
                m.name,
                points.map((p) => ({
                  attributes: flat(p.attributes),
                  value: Number(p.asInt ?? p.asDouble ?? p.count ?? Number.NaN),
                })),
              );
            }
      } else {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    paths,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function runTool(client: DisposableClient, toolId: string, args: Record<string, unknown>) {
  return client.callTool({ name: 'run_tool', arguments: { tool_id: toolId, args } });
}

async function gatewayWith(dir: string, name: string, observability: string[]) {
  const config = path.join(dir, `${name}.yaml`);
  await writeFile(
    config,
    [
      `server: { name: ${name} }`,
      `tools: { builtin: true, modules: [${JSON.stringify(MODULES)}] }`,
      'exposure: metatools',
      'cache: { enabled: true }',
      'overrides:',
      '  fixture:add: { cache: true, metadata: { category: math } }',
      'observability:',
      '  callLogs: false',
      ...observability.map((line) => `  ${line}`),
    ].join('\n'),
  );
  return startHttpGateway(['--config', config]);
}

describe('OTLP export of a served gateway', () => {
  let dir: string;
  let collector: Collector;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-otlp-'));
    collector = await startCollector();
  });
  afterAll(async () => {
    await collector.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exports spans with the tool and surface attributes, and the /metrics figures by name (sampleRatio 1)', async () => {
    const gateway = await gatewayWith(dir, 'otlp-on', [
      `otlp: { endpoint: ${JSON.stringify(collector.url)}, metrics: true, metricsIntervalMs: 200 }`,
      'tracing: { sampleRatio: 1 }',
    ]);
    const client = await connectHttp(gateway.url);
    try {
      expect((await runTool(client, 'fixture:add', { a: 1, b: 2 })).isError).toBeFalsy();
      expect((await runTool(client, 'fixture:add', { a: 1, b: 2 })).isError).toBeFalsy();
      await client.callTool({ name: 'search_tools', arguments: { query: 'add numbers' } });
      await waitFor(
        () => (collector.metrics.get('tool_exec_total') ?? []).some((p) => p.value === 2),
        'tool_exec_total = 2',
      );
      await waitFor(() => collector.metrics.has('tool_search_duration_ms'), 'the search histogram');
    } finally {
      await client.close();
      await stopProcess(gateway.child);
    }
    const exec = collector.metrics.get('tool_exec_total') ?? [];
    expect(exec).toContainEqual({ attributes: { tool: 'fixture:add', outcome: 'ok' }, value: 2 });
    const duration = collector.metrics.get('tool_exec_duration_ms') ?? [];
    expect(duration).toContainEqual({ attributes: { tool: 'fixture:add' }, value: 2 });
    const lookups = collector.metrics.get('tool_cache_tool_lookups_total') ?? [];
    expect(lookups).toContainEqual({ attributes: { tool: 'fixture:add', outcome: 'hit' }, value: 1 });
    expect(lookups).toContainEqual({ attributes: { tool: 'fixture:add', outcome: 'miss' }, value: 1 });
    expect(collector.metrics.has('tool_cache_lookups_total')).toBe(true);

    const span = collector.spans.find((s) => s.name === 'tool.exec.fixture.add');
    expect(span?.attributes).toMatchObject({
      'tool.id': 'fixture:add',
      'tool.category': 'math',
      'aperture.surface': 'mcp',
    });
    expect(typeof span?.attributes['tool.source']).toBe('string');
    expect(collector.spans.some((s) => s.name === 'tool.search')).toBe(true);
  }, 60_000);

  it('records no span at sampleRatio 0, while the metrics still count every call', async () => {
    collector.spans.length = 0;
    collector.metrics.clear();
    const gateway = await gatewayWith(dir, 'otlp-sampled-out', [
      `otlp: { endpoint: ${JSON.stringify(`${collector.url}/v1/traces`)}, metrics: true, metricsIntervalMs: 200 }`,
      'tracing: { sampleRatio: 0 }',
    ]);
    const client = await connectHttp(gateway.url);
    try {
      for (let i = 0; i < 5; i++) await runTool(client, 'fixture:add', { a: i, b: 1 });
      await waitFor(
        () => (collector.metrics.get('tool_exec_total') ?? []).some((p) => p.value === 5),
        'tool_exec_total = 5',
      );
    } finally {
      await client.close();
      await stopProcess(gateway.child);
    }
    expect(collector.spans).toEqual([]);
  }, 60_000);

  it('writes spans and metrics to stdout as JSON lines with exporter: stdout', async () => {
    const gateway = await gatewayWith(dir, 'otlp-stdout', [
      'exporter: stdout',
      'otlp: { metrics: true, metricsIntervalMs: 200 }',
    ]);
    let stdout = '';
    gateway.child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const client = await connectHttp(gateway.url);
    const lines = () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    try {
      await runTool(client, 'fixture:add', { a: 2, b: 2 });
      await waitFor(() => lines().some((l) => l.metric === 'tool_exec_total'), 'a tool_exec_total line');
    } finally {
      await client.close();
      await stopProcess(gateway.child);
    }
    const span = lines().find((l) => l.span === 'tool.exec.fixture.add');
    expect(span?.attributes).toMatchObject({ 'tool.id': 'fixture:add', 'tool.category': 'math' });
    const metric = lines().findLast((l) => l.metric === 'tool_exec_total');
    expect(metric?.points).toContainEqual({ attributes: { tool: 'fixture:add', outcome: 'ok' }, value: 1 });
  }, 60_000);

  it('refuses otlp without an endpoint unless the exporter is stdout', async () => {
    await expect(gatewayWith(dir, 'otlp-no-endpoint', ['otlp: { metrics: true }'])).rejects.toThrow(
      /otlp\.endpoint/,
    );
  }, 30_000);
});
