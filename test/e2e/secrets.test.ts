// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config holds ${secret:…} references on purpose.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath, startHttpFixture, waitFor } from '../support/fixture-servers.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/** A value no log line may ever show. */
const TOKEN = 'tok-e2e-4f1c9a7b2d';

/**
 * `${secret:…}` as a user runs it: `aperture serve` with a directory provider (the Docker /
 * Kubernetes layout), the secret carried as a header to a remote MCP server, and never written to
 * the gateway's own log, even at debug level and even when a downstream server prints it.
 */
describe('secrets in `aperture serve`', () => {
  let dir: string;
  let fixture: Awaited<ReturnType<typeof startHttpFixture>>;
  let gateway: RunningGateway;

  beforeAll(async () => {
    fixture = await startHttpFixture();
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-secrets-e2e-'));
    await mkdir(path.join(dir, 'run-secrets'));
    // As `echo "$TOKEN" > file` writes it: the trailing newline is not part of the secret.
    await writeFile(path.join(dir, 'run-secrets', 'TOKEN'), `${TOKEN}\n`);
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'secrets:',
        '  providers:',
        '    - { type: directory, path: run-secrets }',
        'tools: { builtin: false }',
        'observability: { logLevel: debug }',
        'servers:',
        '  remote:',
        `    url: "${fixture.url}/mcp"`,
        '    transport: streamable-http',
        '    headers: { Authorization: "Bearer ${secret:TOKEN}" }',
        '  noisy:',
        `    command: "${process.execPath}"`,
        `    args: ["${fixtureServerPath('faulty-server.mjs')}"]`,
        // The child prints its secret to stderr; the gateway logs that line.
        '    env: { FAULTY_STDERR_LINE: "child says ${secret:TOKEN}" }',
        // A server that cannot start, whose error (in /readyz, and for calls) would name the secret.
        '  broken:',
        '    command: "/nonexistent/${secret:TOKEN}/server"',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config], dir);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await fixture?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('sends the secret from the directory provider as the remote server header', async () => {
    await waitFor('the gateway to be ready', async () => (await fetch(`${gateway.url}/readyz`)).ok, 15_000);
    const res = await fetch(`${gateway.url}/api/tools/remote:whoami`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      success: boolean;
      result: { structuredContent: Record<string, unknown> };
    };
    expect(body.success).toBe(true);
    expect(body.result.structuredContent.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('masks the secret in /readyz and in error messages', async () => {
    await waitFor('the gateway to be ready', async () => (await fetch(`${gateway.url}/readyz`)).ok, 15_000);
    const readyz = await (await fetch(`${gateway.url}/readyz`)).text();
    const broken = (
      JSON.parse(readyz) as { sources: { id: string; lastError?: { message: string } }[] }
    ).sources.find((s) => s.id === 'mcp:broken');
    expect(broken?.lastError?.message).toContain('/nonexistent/[REDACTED]/server');
    expect(readyz).not.toContain(TOKEN);
  });

  it('never writes the secret to its log, at debug level', async () => {
    await waitFor('the stdio server stderr line to be logged', () => gateway.stderr().includes('child says'));
    const log = gateway.stderr();
    expect(log).toContain('child says [REDACTED]');
    expect(log).not.toContain(TOKEN);
    // Not even a fragment long enough to matter.
    expect(log).not.toContain(TOKEN.slice(0, 12));
  });
});
