import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import {
  type Exposition,
  histogramSeries,
  parseExposition,
  sampleValue,
} from '../support/prometheus-text.js';
import {
  connectHttp,
  type DisposableClient,
  FIXTURE_CONFIG,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  stopProcess,
  structured,
} from './gateway-process.js';

/**
 * Observability of a gateway started as a user starts it (`aperture serve --config F --port 0`):
 * Prometheus text at /metrics (parsed with a Prometheus text parser) whose counters move by exactly
 * the calls made, spans exported over OTLP/HTTP to a receiver started here and flushed when the
 * gateway stops, and one call log line per call with credentials redacted.
 */

const FAULTY = path.join(ROOT, 'test/fixtures/mcp/faulty-server.mjs');
const MODULES = path.join(ROOT, 'test/fixtures/tools/*.ts');
/** Credentials passed as tool arguments; they must appear in no log line, span or metric. */
const SECRETS = ['sk-live-7f3a9c', 'Bearer tok-93b1e', 'pw-hunter2-x'];

async function waitReady(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/readyz`);
    if (res.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('gateway never became ready');
}

async function scrape(url: string): Promise<{ text: string; metrics: Exposition; contentType: string }> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, metrics: parseExposition(text), contentType: res.headers.get('content-type') ?? '' };
}

function runTool(client: DisposableClient, toolId: string, args: Record<string, unknown>) {
  return client.callTool({ name: 'run_tool', arguments: { tool_id: toolId, args } });
}

/** The `tool call` lines the gateway logged (JSON lines on stderr). */
function callLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'tool call');
}

describe('observability of a served gateway', () => {
  let dir: string;
  let receiver: OtlpReceiver;
  let gateway: RunningGateway;
  let client: DisposableClient;
  let before: Exposition;
  let after: Awaited<ReturnType<typeof scrape>>;
  let stderr: string;
  let searchHits = 0;
  const query = 'add two numbers';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-observe-'));
    receiver = await startOtlpReceiver();
    const q = JSON.stringify;
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'server: { name: obs-test }',
        `tools: { builtin: true, modules: [${q(MODULES)}] }`,
        'exposure: metatools',
        'servers:',
        `  faulty: { command: ${q(process.execPath)}, args: [${q(FAULTY)}] }`,
        // A server that exits at once: tried, failed, retried in the background.
        `  broken: { command: ${q(process.execPath)}, args: ["-e", "process.exit(1)"] }`,
        'observability:',
        '  logLevel: info',
        `  otlp: { endpoint: ${q(receiver.url)}, headers: { x-collector-key: "collector-k" } }`,
        '  callLogs: { maxStringLength: 16 }',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
    await waitReady(gateway.url);
    client = await connectHttp(gateway.url);
    before = (await scrape(gateway.url)).metrics;

    // Calls that reach execution: 2 ok + 1 failing local, 1 bad output, 1 timeout (a backend that
    // never answers), 1 with credentials in its arguments, 1 ok + 1 failing downstream.
    expect((await runTool(client, 'fixture:add', { a: 1, b: 2 })).isError).toBeFalsy();
    expect((await runTool(client, 'fixture:add', { a: 3, b: 4 })).isError).toBeFalsy();
    expect(structured(await runTool(client, 'fixture:fail', {})).error.code).toBe('execution_failed');
    expect(structured(await runTool(client, 'fixture:bad_output', {})).error.code).toBe('validation_output');
    expect(structured(await runTool(client, 'fixture:hang', {})).error.code).toBe('timeout');
    const withSecrets = await runTool(client, 'fixture:noop', {
      // Names the logger's own last-resort redaction (a fixed list of exact keys) does not know,
      // so that this checks the call log's redaction (`…token`, `…authorization`, `…password`).
      githubToken: SECRETS[0],
      headers: { 'X-Upstream-Authorization': SECRETS[1] },
      nested: [{ dbPassword: SECRETS[2] }],
      note: 'a long note that goes on and on',
    });
    expect(withSecrets.isError).toBeFalsy();
    expect((await runTool(client, 'faulty:echo', { text: 'hi' })).isError).toBeFalsy();
    expect(structured(await runTool(client, 'faulty:fail', { message: 'down' })).error.code).toBe(
      'execution_failed',
    );
    // Refused before execution (bad arguments): not a tool execution, so not counted.
    expect(structured(await runTool(client, 'fixture:add', { a: 'x' })).error.code).toBe('validation_input');

    const search = await client.callTool({ name: 'search_tools', arguments: { query } });
    searchHits = (structured(search).tools as unknown[]).length;

    after = await scrape(gateway.url);
    await client.close();
    // Stopping the gateway flushes the spans still queued in the batch processor.
    await stopProcess(gateway.child);
    stderr = gateway.stderr();
  }, 120_000);

  afterAll(async () => {
    await stopProcess(gateway.child);
    await receiver[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  const delta = (name: string, labels: Record<string, string>) =>
    sampleValue(after.metrics, name, labels) - sampleValue(before, name, labels);

  it('serves Prometheus text whose counters moved by exactly the calls made', () => {
    expect(after.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(after.metrics.types.get('tool_exec_total')).toBe('counter');
    const total = (tool: string, outcome: string) => delta('tool_exec_total', { tool, outcome });
    expect(total('fixture:add', 'ok')).toBe(2);
    expect(total('fixture:add', 'validation_input')).toBe(0);
    expect(total('fixture:fail', 'execution_failed')).toBe(1);
    expect(total('fixture:bad_output', 'validation_output')).toBe(1);
    expect(total('fixture:hang', 'timeout')).toBe(1);
    expect(total('fixture:noop', 'ok')).toBe(1);
    expect(total('faulty:echo', 'ok')).toBe(1);
    expect(total('faulty:fail', 'execution_failed')).toBe(1);
    // Nothing else moved: the sum over every series is the 8 calls.
    const sum = (m: Exposition) => (m.samples.get('tool_exec_total') ?? []).reduce((s, x) => s + x.value, 0);
    expect(sum(after.metrics) - sum(before)).toBe(8);

    const errors = (tool: string, code: string) => delta('tool_exec_errors_total', { tool, code });
    expect(errors('fixture:fail', 'execution_failed')).toBe(1);
    expect(errors('fixture:bad_output', 'validation_output')).toBe(1);
    expect(errors('fixture:hang', 'timeout')).toBe(1);
    expect(errors('faulty:fail', 'execution_failed')).toBe(1);
    expect(errors('fixture:add', 'execution_failed')).toBe(0);
  });

  it('times calls in a ms histogram per tool, with cumulative buckets', () => {
    const add = histogramSeries(after.metrics, 'tool_exec_duration_ms', { tool: 'fixture:add' });
    expect(add?.count).toBe(2);
    expect(add?.buckets.get('+Inf')).toBe(2);
    const bounds = [...(add?.buckets.keys() ?? [])];
    expect(bounds.slice(0, 3)).toEqual(['0.5', '1', '2.5']);
    const counts = [...(add?.buckets.values() ?? [])];
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    // The hung call ended at its 300 ms timeout: above the 250 ms bound, within 1 s.
    const hang = histogramSeries(after.metrics, 'tool_exec_duration_ms', { tool: 'fixture:hang' });
    expect(hang?.buckets.get('250')).toBe(0);
    expect(hang?.buckets.get('1000')).toBe(1);
    expect(hang?.sum).toBeGreaterThanOrEqual(290);
  });

  it('times searches, reports downstream health and the process metrics', () => {
    const search = (m: Exposition) =>
      histogramSeries(m, 'tool_search_duration_ms', { strategy: 'bm25' })?.count ?? 0;
    expect(search(after.metrics) - search(before)).toBe(1);
    expect(sampleValue(after.metrics, 'downstream_server_up', { server: 'faulty', kind: 'mcp' })).toBe(1);
    expect(sampleValue(after.metrics, 'downstream_server_up', { server: 'broken', kind: 'mcp' })).toBe(0);
    expect(after.metrics.samples.get('downstream_server_up')).toHaveLength(2);
    expect(after.metrics.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(sampleValue(after.metrics, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('exports a span per call over OTLP/HTTP with the tool and caller attributes', () => {
    const exec = receiver.spans.filter((s) => s.name.startsWith('tool.exec.'));
    expect(exec.map((s) => s.name).sort()).toEqual(
      [
        'tool.exec.faulty.echo',
        'tool.exec.faulty.fail',
        'tool.exec.fixture.add',
        'tool.exec.fixture.add',
        'tool.exec.fixture.bad_output',
        'tool.exec.fixture.fail',
        'tool.exec.fixture.hang',
        'tool.exec.fixture.noop',
      ].sort(),
    );
    const add = exec.find((s) => s.name === 'tool.exec.fixture.add') as ReceivedSpan;
    expect(add.kind).toBe(1);
    expect(add.attributes).toMatchObject({
      'tool.id': 'fixture:add',
      'tool.namespace': 'fixture',
      'tool.name': 'add',
    });
    expect(Array.isArray(add.attributes['tool.tags'])).toBe(true);
    expect(typeof add.attributes['caller.identity']).toBe('string');
    expect(add.attributes['caller.identity']).not.toBe('');
    expect(add.status.code).toBe(0);
    expect(add.resource['service.name']).toBe('obs-test');
    for (const [name, code] of [
      ['tool.exec.fixture.fail', 'execution_failed'],
      ['tool.exec.fixture.bad_output', 'validation_output'],
      ['tool.exec.fixture.hang', 'timeout'],
    ] as const) {
      const span = exec.find((s) => s.name === name) as ReceivedSpan;
      expect(span.status, name).toEqual({ code: 2, message: code });
      expect(span.attributes['error.type'], name).toBe(code);
    }
    // The configured headers go with every export.
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) expect(request.headers['x-collector-key']).toBe('collector-k');
  });

  it('nests the downstream call under the tool call it serves, and marks its failure', () => {
    const byName = (name: string) => receiver.spans.filter((s) => s.name === name);
    const mcp = byName('mcp.call faulty');
    expect(mcp).toHaveLength(2);
    for (const [tool, code] of [
      ['echo', undefined],
      ['fail', 'execution_failed'],
    ] as const) {
      const exec = byName(`tool.exec.faulty.${tool}`)[0] as ReceivedSpan;
      const child = mcp.find((s) => s.attributes['gen_ai.tool.name'] === tool) as ReceivedSpan;
      expect(child.kind).toBe(3);
      expect(child.traceId).toBe(exec.traceId);
      expect(child.parentSpanId).toBe(exec.spanId);
      expect(child.attributes['mcp.server.name']).toBe('faulty');
      expect(child.status.code).toBe(code ? 2 : 0);
    }
  });

  it('exports a tool.search span with the query length and result count', () => {
    const searches = receiver.spans.filter((s) => s.name === 'tool.search');
    expect(searches).toHaveLength(1);
    expect(searches[0]?.attributes).toMatchObject({
      'search.query.length': query.length,
      'search.result.count': searchHits,
      'search.strategy': 'bm25',
    });
    expect(searchHits).toBeGreaterThan(0);
  });

  it('logs one line per call with duration, outcome, caller and redacted arguments', () => {
    const lines = callLines(stderr);
    expect(lines).toHaveLength(8);
    expect(new Set(lines.map((l) => l.callId)).size).toBe(8);
    const count = (tool: string) => lines.filter((l) => l.tool === tool).length;
    expect(count('fixture:add')).toBe(2);
    expect(count('faulty:echo')).toBe(1);
    const fail = lines.find((l) => l.tool === 'fixture:fail');
    expect(fail).toMatchObject({ level: 30, outcome: 'error', code: 'execution_failed' });
    expect(typeof fail?.durationMs).toBe('number');
    expect(typeof fail?.caller).toBe('string');
    const add = lines.find((l) => l.tool === 'fixture:add');
    expect(add).toMatchObject({ outcome: 'ok', args: { a: 1, b: 2 } });
    expect(add?.code).toBeUndefined();
    const noop = lines.find((l) => l.tool === 'fixture:noop');
    expect(noop?.args).toEqual({
      githubToken: '[REDACTED]',
      headers: { 'X-Upstream-Authorization': '[REDACTED]' },
      nested: [{ dbPassword: '[REDACTED]' }],
      note: 'a long note that…[15 more chars]',
    });
  });

  it('never lets a credential from the arguments into logs, spans or metrics', () => {
    const exported = receiver.requests.map((r) => r.body).join('\n');
    for (const secret of SECRETS) {
      expect(stderr).not.toContain(secret);
      expect(exported).not.toContain(secret);
      expect(after.text).not.toContain(secret);
    }
    // The check can fail: the request did carry them.
    expect(stderr).toContain('[REDACTED]');
  });
});

describe('observability switched off', () => {
  it('answers 404 at /metrics with `metrics: false`, and logs no call lines below info', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-observe-off-'));
    try {
      const config = path.join(dir, 'aperture.yaml');
      await writeFile(config, 'observability: { logLevel: warn, metrics: false }\n');
      await using gateway = await startHttpGateway(['--config', config]);
      const res = await fetch(`${gateway.url}/metrics`);
      expect(res.status).toBe(404);
      await using client = await connectHttp(gateway.url);
      await runTool(client, 'time:now', {});
      expect(callLines(gateway.stderr())).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('serves /metrics by default (the fixture config sets nothing)', async () => {
    await using gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
    const { metrics } = await scrape(gateway.url);
    expect(metrics.types.get('tool_exec_total')).toBe('counter');
  }, 60_000);
});
