import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * Approvals end to end: the built CLI serving a config whose rule holds `repo:delete` for
 * approval, with auth on (an agent key, an admin key) and every call audited. Held calls are
 * answered through the official SDK client's elicitation (accept, decline), through the admin
 * API and `aperture approvals` while the call waits, or by nobody (timeout); then `aperture audit
 * verify` checks the trail these tests wrote, and fails naming the line once one byte changed.
 */

const run = promisify(execFile);
const AGENT_KEY = 'agent-key-0123456789abcdef';
const ROOT_KEY = 'root-key-0123456789abcdefgh';
// Long enough for three CLI processes to start on a loaded machine while a call waits.
const TIMEOUT_MS = 10_000;

function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('approvals end to end', { timeout: 60_000 }, () => {
  let dir: string;
  let auditFile: string;
  let gateway: RunningGateway;
  const clients: Client[] = [];

  /** An SDK client with the agent's key; with `answer`, it declared elicitation and answers so. */
  async function connect(
    answer?: { action: 'accept' | 'decline' | 'cancel' },
    asked: string[] = [],
    /** Pins the protocol revision (`2026-07-28`: the question comes as an input round of the call). */
    pin?: string,
  ): Promise<Client> {
    const client = new Client(
      { name: 'approvals-e2e', version: '1.0.0' },
      {
        ...(answer ? { capabilities: { elicitation: {} } } : {}),
        ...(pin ? { versionNegotiation: { mode: { pin } } } : {}),
      },
    );
    if (answer) {
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(String((request.params as { message?: unknown }).message));
        return answer.action === 'accept' ? { action: 'accept', content: {} } : { action: answer.action };
      });
    }
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': AGENT_KEY } },
      }),
    );
    clients.push(client);
    return client;
  }

  const admin = (route: string, method = 'GET', key = ROOT_KEY) =>
    fetch(`${gateway.url}/api/admin/${route}`, { method, headers: { 'x-api-key': key } });

  async function pending(): Promise<
    { id: string; tool: string; args: Record<string, unknown>; caller: string }[]
  > {
    const response = await admin('approvals');
    expect(response.status).toBe(200);
    return ((await response.json()) as { approvals: never[] }).approvals;
  }

  async function waitPending(count: number) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const list = await pending();
      if (list.length === count) return list;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`never ${count} pending`);
  }

  const cli = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], { cwd: ROOT }).then(
      (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
      (failed: { code: number; stdout: string; stderr: string }) => failed,
    );

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-approvals-'));
    auditFile = path.join(dir, 'audit.jsonl');
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'server: { name: approvals-e2e }',
        'tools:',
        `  modules: [${JSON.stringify(path.join(ROOT, 'test/fixtures/approvals/repo-tools.ts'))}]`,
        'exposure: flat',
        'state: { driver: memory }',
        'observability: { logLevel: warn }',
        'auth:',
        '  apiKeys:',
        `    - { name: agent, key: ${AGENT_KEY} }`,
        `    - { name: root, key: ${ROOT_KEY}, admin: true }`,
        'policies:',
        '  - name: ask-deletes',
        '    effect: approve',
        '    tools: ["repo:delete"]',
        '    reason: Deleting a repository cannot be undone',
        '  - name: no-secrets',
        '    effect: deny',
        '    tools: ["repo:read"]',
        '    when: args.repo == "acme/secret"',
        `approvals: { timeoutMs: ${TIMEOUT_MS} }`,
        `audit: { path: ${JSON.stringify(auditFile)}, calls: true }`,
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks a client that declared elicitation, showing the redacted arguments; accept runs the call', async () => {
    const asked: string[] = [];
    const client = await connect({ action: 'accept' }, asked);
    const result = await client.callTool({
      name: 'repo__delete',
      arguments: { repo: 'acme/site', token: 'hunter2' },
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('deleted acme/site');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('repo:delete');
    expect(asked[0]).toContain('Deleting a repository cannot be undone');
    expect(asked[0]).toContain('acme/site');
    expect(asked[0]).not.toContain('hunter2');
    // A tool no rule holds is never asked about.
    expect(text(await client.callTool({ name: 'repo__read', arguments: { repo: 'acme/site' } }))).toBe(
      'read acme/site',
    );
    expect(asked).toHaveLength(1);
  });

  it('asks a 2026-07-28 client through an input round of the call; accept runs it, decline refuses it', async () => {
    const asked: string[] = [];
    const accepting = await connect({ action: 'accept' }, asked, '2026-07-28');
    const result = await accepting.callTool({
      name: 'repo__delete',
      arguments: { repo: 'acme/modern', token: 'hunter2' },
    });
    expect(text(result)).toBe('deleted acme/modern');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('repo:delete');
    expect(asked[0]).not.toContain('hunter2');
    const declining = await connect({ action: 'decline' }, [], '2026-07-28');
    const refused = await declining.callTool({ name: 'repo__delete', arguments: { repo: 'acme/modern' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/approval_denied/);
  });

  it('asks a 2025-era client (v1 SDK) through elicitation/create on its session too', async () => {
    const asked: string[] = [];
    const client = new LegacyClient(
      { name: 'approvals-legacy', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: {} };
    });
    await client.connect(
      new LegacyHttpTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': AGENT_KEY } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'repo__delete', arguments: { repo: 'acme/legacy' } });
      expect(text(result)).toBe('deleted acme/legacy');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('repo:delete');
    } finally {
      await client.close();
    }
  });

  it('answers approval_denied when the client declines, and the tool does not run', async () => {
    const client = await connect({ action: 'decline' });
    const result = await client.callTool({ name: 'repo__delete', arguments: { repo: 'acme/site' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/approval_denied/);
  });

  it('holds the call of a client without elicitation until an admin approves it through the API', async () => {
    const client = await connect();
    const call = client.callTool({ name: 'repo__delete', arguments: { repo: 'acme/api', token: 'hunter2' } });
    const [entry] = await waitPending(1);
    expect(entry).toMatchObject({
      tool: 'repo:delete',
      caller: 'apikey:agent',
      args: { repo: 'acme/api', token: '[REDACTED]' },
    });
    // The agent itself may neither see nor answer the queue.
    expect((await admin('approvals', 'GET', AGENT_KEY)).status).toBe(403);
    expect((await admin(`approvals/${entry?.id}/approve`, 'POST', AGENT_KEY)).status).toBe(403);
    const answer = await admin(`approvals/${entry?.id}/approve`, 'POST');
    expect(await answer.json()).toEqual({ id: entry?.id, outcome: 'approved', tool: 'repo:delete' });
    expect(text(await call)).toBe('deleted acme/api');
    expect(await pending()).toEqual([]);
    expect((await admin(`approvals/${entry?.id}/deny`, 'POST')).status).toBe(404);
  });

  it('lists and denies a held call with `aperture approvals` talking to the running gateway', async () => {
    const client = await connect();
    const call = client.callTool({ name: 'repo__delete', arguments: { repo: 'acme/www' } });
    const [entry] = await waitPending(1);
    const target = ['--url', gateway.url, '--api-key', ROOT_KEY];
    const listed = await cli('approvals', ...target, 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(entry?.id);
    expect(listed.stdout).toContain('repo:delete');
    const refused = await cli(
      'approvals',
      '--url',
      gateway.url,
      '--api-key',
      AGENT_KEY,
      'deny',
      entry?.id ?? '',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/forbidden/);
    const denied = await cli('approvals', ...target, 'deny', entry?.id ?? '');
    expect(denied.stdout).toContain('repo:delete denied');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/approval_denied/);
    const unknown = await cli('approvals', ...target, 'approve', 'no-such-id');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/not_found/);
  });

  it('answers approval_timeout when nobody answers in time, and the call leaves the queue', async () => {
    const client = await connect();
    const started = Date.now();
    const result = await client.callTool({ name: 'repo__delete', arguments: { repo: 'acme/old' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/approval_timeout/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(await pending()).toEqual([]);
  });

  it('takes a held call out of the queue when its client cancels it', async () => {
    const client = new LegacyClient({ name: 'approvals-cancel', version: '1.0.0' });
    await client.connect(
      new LegacyHttpTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': AGENT_KEY } },
      }),
    );
    try {
      const abort = new AbortController();
      const call = client.callTool({ name: 'repo__delete', arguments: { repo: 'acme/gone' } }, undefined, {
        signal: abort.signal,
      });
      const [entry] = await waitPending(1);
      abort.abort();
      await expect(call).rejects.toThrow();
      // The client's cancellation reached the gateway: the held call left the queue as cancelled,
      // not by its deadline.
      await waitPending(0);
      const answers = (await readFile(auditFile, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((line) => line.kind === 'approval.answer' && line.details.id === entry?.id);
      expect(answers).toMatchObject([{ decision: 'cancelled', actor: 'apikey:agent' }]);
    } finally {
      await client.close();
    }
  });

  it('holds a REST call too, answered by an admin', async () => {
    const call = fetch(`${gateway.url}/api/tools/repo:delete`, {
      method: 'POST',
      headers: { 'x-api-key': AGENT_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ repo: 'acme/rest' }),
    });
    const [entry] = await waitPending(1);
    expect(entry).toMatchObject({ surface: 'rest' });
    await admin(`approvals/${entry?.id}/deny`, 'POST');
    const response = await call;
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('approval_denied');
  });

  it('recorded it all in a chain `aperture audit verify` checks, and names the line after one byte changed', async () => {
    const client = await connect();
    const refused = await client.callTool({ name: 'repo__read', arguments: { repo: 'acme/secret' } });
    expect(text(refused)).toMatch(/forbidden/);
    expect((await admin('reload', 'POST')).status).toBe(200);
    const lines = (await readFile(auditFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const kinds = lines.map((line) => `${line.kind}:${line.decision ?? ''}`);
    for (const kind of [
      'approval.answer:approved',
      'approval.answer:denied',
      'approval.answer:timeout',
      'call:ok',
      'admin.reload:ok',
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(lines.find((line) => line.kind === 'admin.reload')).toMatchObject({ actor: 'apikey:root' });
    expect(
      lines.find(
        (line) =>
          line.kind === 'approval.answer' && line.decision === 'approved' && line.details.via === 'admin',
      ),
    ).toMatchObject({ actor: 'apikey:root' });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
    // The console reads the same trail.
    const listed = (await (await admin('audit?limit=5')).json()) as {
      lines: unknown[];
      calls: boolean;
      where: string;
    };
    expect(listed).toMatchObject({ calls: true, where: auditFile });
    expect(listed.lines).toHaveLength(5);

    const verified = await cli('audit', 'verify', auditFile);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(`${lines.length} lines, chain intact`);
    const tail = await cli('audit', 'tail', auditFile, '-n', '2');
    expect(tail.stdout.trim().split('\n')).toHaveLength(2);
    expect(tail.stdout).toContain('admin.reload');

    // One byte of line 3 changed (a copy: the gateway still appends to the original).
    const copy = path.join(dir, 'tampered.jsonl');
    const original = await readFile(auditFile, 'utf8');
    const start = original.split('\n').slice(0, 2).join('\n').length + 1;
    const at = original.indexOf('"actor":"', start) + '"actor":"'.length;
    await writeFile(copy, `${original.slice(0, at)}X${original.slice(at + 1)}`);
    const broken = await cli('audit', 'verify', copy);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/broken at line 3 of/);
  });
});
