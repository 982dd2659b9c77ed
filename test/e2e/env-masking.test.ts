// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config holds ${env:…} references on purpose.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath, startHttpFixture, waitFor } from '../support/fixture-servers.js';
import { CLI, type RunningGateway, startHttpGateway } from './gateway-process.js';

const exec = promisify(execFile);

/** Values given to the gateway through its environment; none may ever be shown. */
const VALUES = {
  RK_URL: 'rk-live-url-7c1e93',
  RK_SPEC: 'rk-live-spec-51a0d2',
  RK_HDR: 'rk-live-hdr-0b8f44',
  RK_CHILD: 'rk-live-child-9e2c17',
};
const API_KEY = 'ops-key-3f9a1c5e7d';

function expectNoValue(text: string): void {
  for (const value of Object.values(VALUES)) expect(text).not.toContain(value);
}

/**
 * `${env:…}` values sent to sources (in a URL's query, a header, a child's environment) are
 * credentials: masked in /readyz, in the log, in doctor's output — and /readyz, public even with
 * auth on, tells a caller without credentials only whether the gateway is ready.
 */
describe('${env:…} credentials in `aperture serve`', () => {
  let dir: string;
  let config: string;
  let fixture: Awaited<ReturnType<typeof startHttpFixture>>;
  let gateway: RunningGateway;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    fixture = await startHttpFixture();
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-env-mask-'));
    config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        `auth: { apiKeys: [{ name: ops, key: ${API_KEY} }] }`,
        'tools: { builtin: false }',
        'observability: { logLevel: debug }',
        'servers:',
        // Port 9 (discard) is closed: the connection error names the URL.
        '  unreachable: { url: "http://127.0.0.1:9/mcp?api_key=${env:RK_URL}", transport: streamable-http }',
        '  remote:',
        `    url: "${fixture.url}/mcp"`,
        '    transport: streamable-http',
        '    headers: { x-fixture: "${env:RK_HDR}" }',
        '  noisy:',
        `    command: "${process.execPath}"`,
        `    args: ["${fixtureServerPath('faulty-server.mjs')}"]`,
        '    env: { FAULTY_STDERR_LINE: "child says ${env:RK_CHILD}" }',
        'openapi:',
        '  - { spec: "http://127.0.0.1:9/spec.json?api_key=${env:RK_SPEC}", namespace: api, allowPrivateNetwork: true }',
      ].join('\n'),
    );
    for (const [name, value] of Object.entries(VALUES)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    gateway = await startHttpGateway(['--config', config], dir);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await fixture?.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const authed = { 'x-api-key': API_KEY };

  it('answers /readyz without credentials with the readiness alone', async () => {
    await waitFor('the gateway to be ready', async () => (await fetch(`${gateway.url}/readyz`)).ok, 15_000);
    const response = await fetch(`${gateway.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true });
  });

  it('gives authenticated callers the details, every value masked', async () => {
    await waitFor('the gateway to be ready', async () => (await fetch(`${gateway.url}/readyz`)).ok, 15_000);
    const text = await (await fetch(`${gateway.url}/readyz`, { headers: authed })).text();
    const body = JSON.parse(text) as {
      sources: { id: string; state: string; lastError?: { message: string } }[];
    };
    const unreachable = body.sources.find((s) => s.id === 'mcp:unreachable');
    expect(unreachable?.state).toBe('failed');
    expect(unreachable?.lastError?.message).toContain('127.0.0.1:9');
    expect(body.sources.find((s) => s.id === 'mcp:remote')?.state).toBe('connected');
    expect(body.sources.some((s) => s.id.startsWith('openapi:') && s.state === 'failed')).toBe(true);
    expectNoValue(text);
  });

  it('never writes the values to its log', async () => {
    await waitFor('the stdio server stderr line to be logged', () => gateway.stderr().includes('child says'));
    const log = gateway.stderr();
    expect(log).toContain('child says [REDACTED]');
    expectNoValue(log);
  });

  it('masks them in doctor output', async () => {
    const run = await exec(
      process.execPath,
      [CLI, 'doctor', '--config', config, '--json', '--timeout', '5000'],
      {
        cwd: dir,
        env: { ...process.env },
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    expect(run.stdout).toContain('unreachable');
    expectNoValue(run.stdout);
    expectNoValue(run.stderr);
  });
});
