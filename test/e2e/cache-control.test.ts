import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  connectHttp,
  type DisposableClient,
  type RunningGateway,
  startHttpGateway,
  stopProcess,
  structured,
} from './gateway-process.js';

const run = promisify(execFile);

/**
 * Cache control on a served gateway: read-only tools whose every run answers a new number, so a
 * cached answer is told from a fresh one. Per-tool time to live (an override and a `cache.tools`
 * glob), the admin call and `aperture cache clear` dropping entries, and the per-tool hit ratio
 * in `/metrics`.
 */

const TOOLS = `
let runs = 0;
const tick = (name) => ({
  namespace: name.split(':')[0],
  name: name.split(':')[1],
  description: 'Count the runs.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
  handler: () => ({ run: ++runs }),
});
export const a = tick('counter:slow');
export const b = tick('counter:quick');
export const c = tick('other:tick');
export const d = tick('counter:never');
`;

describe('cache control', () => {
  let dir: string;
  let gateway: RunningGateway;
  let client: DisposableClient;
  const tick = async (id: string): Promise<number> =>
    structured(await client.callTool({ name: 'run_tool', arguments: { tool_id: id, args: {} } })).run;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-cache-'));
    await writeFile(path.join(dir, 'tools.mjs'), TOOLS);
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'server: { name: cache-test }',
        `tools: { builtin: false, modules: [${JSON.stringify(path.join(dir, 'tools.mjs'))}] }`,
        'exposure: metatools',
        'cache:',
        '  ttlMs: 60000',
        '  tools:',
        '    "counter:*": { ttlMs: 400 }',
        '    "counter:slow": { ttlMs: 60000 }',
        'overrides:',
        '  counter:never: { cache: { enabled: false } }',
        'observability: { callLogs: false }',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
    client = await connectHttp(gateway.url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (gateway) await stopProcess(gateway.child);
    await rm(dir, { recursive: true, force: true });
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('honours per-tool times to live: a glob, a later exact entry over it, an override turning caching off', async () => {
    const slow = await tick('counter:slow');
    const quick = await tick('counter:quick');
    const never = await tick('counter:never');
    await settle();
    expect(await tick('counter:slow')).toBe(slow);
    expect(await tick('counter:quick')).toBe(quick);
    expect(await tick('counter:never')).not.toBe(never);
    await new Promise((resolve) => setTimeout(resolve, 600)); // past counter:* 400 ms
    expect(await tick('counter:quick')).not.toBe(quick);
    expect(await tick('counter:slow')).toBe(slow);
  });

  it('drops one tool’s entry on POST /api/admin/cache/invalidate, and leaves the others', async () => {
    const slow = await tick('counter:slow');
    const other = await tick('other:tick');
    await settle();
    expect(await tick('other:tick')).toBe(other);
    const res = await fetch(`${gateway.url}/api/admin/cache/invalidate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'counter:slow' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ scope: 'tool', dropped: 1, shared: false });
    expect(await tick('counter:slow')).not.toBe(slow);
    expect(await tick('other:tick')).toBe(other);
  });

  it('refuses a body naming both a tool and a namespace', async () => {
    const res = await fetch(`${gateway.url}/api/admin/cache/invalidate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'counter:slow', namespace: 'counter' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('validation_input');
  });

  it('drops a namespace with `aperture cache clear --namespace`, then everything', async () => {
    const other = await tick('other:tick');
    await settle();
    const { stdout } = await run(process.execPath, [
      CLI,
      'cache',
      'clear',
      '--namespace',
      'other',
      '--url',
      gateway.url,
    ]);
    expect(stdout).toMatch(/Dropped 1 cached result\(s\) of namespace other/);
    const fresh = await tick('other:tick');
    expect(fresh).not.toBe(other);
    await settle();
    const all = await run(process.execPath, [CLI, 'cache', 'clear', '--json', '--url', gateway.url]);
    expect(JSON.parse(all.stdout)).toEqual({ scope: 'all', shared: false });
    expect(await tick('other:tick')).not.toBe(fresh);
  }, 30_000);

  it('shows the hit ratio per tool in /metrics', async () => {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const ratio = /^tool_cache_hit_ratio\{tool="other:tick"\} ([\d.]+)$/m.exec(text);
    expect(ratio).not.toBeNull();
    expect(Number(ratio?.[1])).toBeGreaterThan(0);
    expect(Number(ratio?.[1])).toBeLessThan(1);
    expect(text).toMatch(/^tool_cache_tool_lookups_total\{tool="other:tick",outcome="hit"\} \d+$/m);
    // A tool that is never cached has no ratio.
    expect(text).not.toMatch(/tool_cache_hit_ratio\{tool="counter:never"\}/);
  });
});

describe('cache control with auth on', () => {
  it('lets only an admin key drop entries, through the API and the CLI', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-cache-auth-'));
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'server: { name: cache-auth }',
        'cache: { ttlMs: 60000 }',
        'auth:',
        '  apiKeys:',
        '    - { name: ops, key: "ops-key-123456789", admin: true }',
        '    - { name: agent, key: "agent-key-123456789" }',
        'observability: { callLogs: false }',
      ].join('\n'),
    );
    const gateway = await startHttpGateway(['--config', config]);
    try {
      const post = (key: string) =>
        fetch(`${gateway.url}/api/admin/cache/invalidate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: '{}',
        });
      const refused = await post('agent-key-123456789');
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      expect((await post('ops-key-123456789')).status).toBe(200);
      await expect(
        run(process.execPath, [
          CLI,
          'cache',
          'clear',
          '--url',
          gateway.url,
          '--api-key',
          'agent-key-123456789',
        ]),
      ).rejects.toMatchObject({ stderr: expect.stringMatching(/forbidden|admin/i) });
    } finally {
      await stopProcess(gateway.child);
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
