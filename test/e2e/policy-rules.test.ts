// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the skill in the config uses ${{ … }} on purpose.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

const exec = promisify(execFile);

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef01';

/** The tools the rules are about: a write whose target the rules check, a secret, a read, a delete. */
const TOOLS = `
const repo = { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'], additionalProperties: false };
export const repoWrite = {
  namespace: 'demo', name: 'repo_write', description: 'Write to a repository', inputSchema: repo,
  handler: (args) => ({ wrote: args.repo }),
};
export const secretRead = {
  namespace: 'demo', name: 'secret_read', description: 'Read the secret vault', inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true }, handler: () => ({ secret: 42 }),
};
export const repoRead = {
  namespace: 'demo', name: 'repo_read', description: 'Read a repository', inputSchema: repo,
  annotations: { readOnlyHint: true }, handler: (args) => ({ read: args.repo }),
};
export const repoDelete = {
  namespace: 'demo', name: 'repo_delete', description: 'Delete a repository', inputSchema: repo,
  annotations: { destructiveHint: true }, handler: (args) => ({ deleted: args.repo }),
};
`;

const CEL_POLICIES = [
  'policies:',
  '  rules:',
  '    - name: bob-no-secrets',
  '      effect: deny',
  '      tools: ["demo:secret_read"]',
  '      when: caller.identity == "bob"',
  '    - name: acme-only',
  '      effect: allow',
  '      tools: ["demo:repo_write"]',
  '      when: args.repo.startsWith("acme/")',
  '      examples:',
  '        - { as: alice, tool: "demo:repo_write", args: { repo: "acme/site" }, expect: allow }',
  '        - { as: bob, tool: "demo:repo_write", args: { repo: "evil/site" }, surface: code, expect: deny }',
  '    - name: no-other-repos',
  '      effect: deny',
  '      tools: ["demo:repo_write"]',
  '      reason: only acme repositories',
  '    - name: ask-before-delete',
  '      effect: approve',
  '      tools: ["demo:repo_delete"]',
  '    - name: broken-at-run-time',
  '      effect: allow',
  '      tools: ["demo:repo_read"]',
  '      when: args.repo.startsWith("x") || args.nothing.size() > 0',
];

/** The same decisions as a Cedar file: bob never sees the secret, writes only to acme repositories. */
const CEDAR = `permit(principal, action, resource);
@id("bob-no-secrets")
forbid(principal == Caller::"apikey:bob", action, resource == Tool::"demo:secret_read");
@id("acme-only")
forbid(principal, action == Action::"call_tool", resource == Tool::"demo:repo_write")
  unless { context.args has repo && context.args.repo like "acme/*" };
`;

function configText(policies: string[]): string {
  return [
    'server: { name: policy-e2e }',
    'observability: { logLevel: warn }',
    'tools: { builtin: false, modules: ["./demo-tools.mjs"] }',
    'auth:',
    '  apiKeys:',
    `    - { name: alice, key: "${ALICE}" }`,
    `    - { name: bob, key: "${BOB}" }`,
    'skills:',
    '  - name: write_repo',
    '    description: Writes to a repository through a skill',
    '    input: { type: object, properties: { repo: { type: string } }, required: [repo] }',
    '    steps:',
    '      - id: w',
    '        tool: demo:repo_write',
    '        args: { repo: "${{ inputs.repo }}" }',
    ...policies,
    // Held calls wait for an admin nobody plays here: answered by the timeout, quickly.
    'approvals: { via: admin, timeoutMs: 300 }',
    '',
  ].join('\n');
}

type Outcome = 'ok' | string;

/** The code of a failure, looking through a chain's or a skill's step failure to the step's own. */
function codeOf(error: { code: string; details?: { error?: { code: string } } }): string {
  return error.code === 'chain_step_failed' ? (error.details?.error?.code ?? error.code) : error.code;
}

async function writeDir(policies: string[], extra: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-policy-'));
  await writeFile(path.join(dir, 'demo-tools.mjs'), TOOLS);
  await writeFile(path.join(dir, 'aperture.yaml'), configText(policies));
  for (const [name, text] of Object.entries(extra)) await writeFile(path.join(dir, name), text);
  return dir;
}

describe.each([
  { engine: 'CEL rules', policies: CEL_POLICIES, files: {} },
  {
    engine: 'a Cedar file',
    policies: ['policies: { cedar: ./policies.cedar }'],
    files: { 'policies.cedar': CEDAR },
  },
])('policies as $engine, on every surface of `aperture serve`', ({ policies, files }) => {
  let gateway: RunningGateway;
  let dir: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = await writeDir(policies, files);
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await gateway?.[Symbol.asyncDispose]();
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'e2e-policy', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function mcpOutcome(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
    const result = await client.callTool({ name, arguments: args });
    return result.isError ? codeOf(structured(result).error) : 'ok';
  }

  /** One write of `repo` by alice through each surface, each answered `ok` or with its error code. */
  const SURFACES: Record<string, (repo: string) => Promise<Outcome>> = {
    'MCP run_tool': async (repo) =>
      mcpOutcome(await connect(ALICE), 'run_tool', { tool_id: 'demo:repo_write', args: { repo } }),
    'MCP flat name': async (repo) => mcpOutcome(await connect(ALICE), 'demo__repo_write', { repo }),
    REST: async (repo) => {
      const response = await fetch(`${gateway.url}/api/tools/demo:repo_write`, {
        method: 'POST',
        headers: { 'x-api-key': ALICE, 'content-type': 'application/json' },
        body: JSON.stringify({ repo }),
      });
      const body = (await response.json()) as { success: boolean; error?: { code: string } };
      return body.success ? 'ok' : (body.error?.code ?? String(response.status));
    },
    A2A: async (repo) => {
      const response = await fetch(`${gateway.url}/a2a`, {
        method: 'POST',
        headers: { 'x-api-key': ALICE, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: `m-${repo}-${Math.random()}`,
              role: 'user',
              parts: [{ kind: 'data', data: { tool_id: 'demo:repo_write', args: { repo } } }],
            },
          },
        }),
      });
      const task = (await response.json()) as {
        result: { status: { state: string; message?: { parts: { data?: { error?: { code: string } } }[] } } };
      };
      if (task.result.status.state === 'completed') return 'ok';
      return (
        task.result.status.message?.parts.find((p) => p.data?.error)?.data?.error?.code ??
        task.result.status.state
      );
    },
    run_chain: async (repo) =>
      mcpOutcome(await connect(ALICE), 'run_chain', {
        steps: [{ tool_id: 'demo:repo_write', args: { repo } }],
      }),
    skill: async (repo) =>
      mcpOutcome(await connect(ALICE), 'run_tool', { tool_id: 'skill:write_repo', args: { repo } }),
    execute_code: async (repo) => {
      const result = await (await connect(ALICE)).callTool({
        name: 'execute_code',
        arguments: {
          code: `try { await tools.call('demo:repo_write', { repo: ${JSON.stringify(repo)} }); return 'ok'; } catch (e) { return e.code; }`,
        },
      });
      expect(result.isError).toBeFalsy();
      return structured(result).value;
    },
    'CLI aperture run': async (repo) => {
      const run = await exec(process.execPath, [
        CLI,
        'run',
        'demo:repo_write',
        '--args',
        JSON.stringify({ repo }),
        '--config',
        path.join(dir, 'aperture.yaml'),
      ]).catch((error: { code: number; stderr: string }) => error);
      if (!('stderr' in run) || !('code' in run)) return 'ok';
      return /forbidden/.test(run.stderr) ? 'forbidden' : `exit ${run.code}: ${run.stderr}`;
    },
  };

  it.each(Object.keys(SURFACES))('%s: a write to acme/ runs, any other is forbidden', async (surface) => {
    const call = SURFACES[surface] as (repo: string) => Promise<Outcome>;
    expect(await call('acme/site')).toBe('ok');
    expect(await call('evil/site')).toBe('forbidden');
  });

  it('leaves a tool denied to a caller for every argument out of its list, search and describe', async () => {
    const bob = await connect(BOB);
    const alice = await connect(ALICE);
    const listed = async (client: Client) =>
      structured(await client.callTool({ name: 'list_tools', arguments: {} })).tools.map(
        (t: { id: string }) => t.id,
      );
    expect(await listed(alice)).toContain('demo:secret_read');
    expect(await listed(bob)).not.toContain('demo:secret_read');
    expect(await listed(bob)).toContain('demo:repo_write');
    const found = async (client: Client) =>
      structured(
        await client.callTool({ name: 'search_tools', arguments: { query: 'secret vault' } }),
      ).tools.map((t: { id: string }) => t.id);
    expect(await found(alice)).toContain('demo:secret_read');
    expect(await found(bob)).not.toContain('demo:secret_read');
    const described = await bob.callTool({
      name: 'describe_tool',
      arguments: { tool_id: 'demo:secret_read' },
    });
    expect(structured(described).error.code).toBe('tool_not_found');
    // Called by name, the hidden tool is exactly an unknown one.
    expect(await mcpOutcome(bob, 'run_tool', { tool_id: 'demo:secret_read', args: {} })).toBe(
      'tool_not_found',
    );
    expect(await mcpOutcome(alice, 'run_tool', { tool_id: 'demo:secret_read', args: {} })).toBe('ok');
    const flat = (await bob.listTools()).tools.map((t) => t.name);
    expect(flat).toContain('demo__repo_write');
    expect(flat).not.toContain('demo__secret_read');
    const rest = (await (
      await fetch(`${gateway.url}/api/tools`, { headers: { 'x-api-key': BOB } })
    ).json()) as {
      tools: { id: string }[];
    };
    expect(rest.tools.map((t) => t.id)).not.toContain('demo:secret_read');
    expect(rest.tools.map((t) => t.id)).toContain('demo:repo_read');
  });
});

describe('policy rules: approvals without a gate, failures, and the CLI', () => {
  let gateway: RunningGateway;
  let dir: string;
  let client: Client;

  beforeAll(async () => {
    dir = await writeDir(CEL_POLICIES);
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
    client = new Client({ name: 'e2e-policy', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.[Symbol.asyncDispose]();
  });

  const run = async (tool: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name: 'run_tool', arguments: { tool_id: tool, args } });
    return result.isError ? structured(result).error : structured(result);
  };

  it('holds an approve decision for an answer: nobody answers, the call never runs', async () => {
    expect(await run('demo:repo_delete', { repo: 'acme/site' })).toMatchObject({
      code: 'approval_timeout',
      details: { rule: 'ask-before-delete' },
    });
  });

  it('denies a call whose rule throws at run time, logs it, and keeps serving', async () => {
    expect(await run('demo:repo_read', { repo: 'acme/site' })).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('broken-at-run-time'),
    });
    // The expression short-circuits for this argument: the rule matches and allows.
    expect(await run('demo:repo_read', { repo: 'x/y' })).toEqual({ read: 'x/y' });
    expect(gateway.stderr()).toContain('policy rule failed while evaluated');
  });

  it('reloads the rules live with the config file, and keeps the old ones when the new ones do not compile', async () => {
    const config = path.join(dir, 'aperture.yaml');
    const withRule = (rule: string[]) =>
      configText([...CEL_POLICIES.slice(0, 2), ...rule, ...CEL_POLICIES.slice(2)]);
    await writeFile(config, withRule(['    - { name: bad, effect: deny, when: "args.repo.startsWith(" }']));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await run('demo:repo_write', { repo: 'acme/site' })).toEqual({ wrote: 'acme/site' });
    await writeFile(
      config,
      withRule([
        '    - { name: freeze, effect: deny, tools: ["demo:repo_write"], when: args.repo.startsWith("acme/"), reason: frozen }',
      ]),
    );
    const deadline = Date.now() + 10_000;
    let outcome = await run('demo:repo_write', { repo: 'acme/site' });
    while (outcome.code !== 'forbidden' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      outcome = await run('demo:repo_write', { repo: 'acme/site' });
    }
    expect(outcome).toMatchObject({ code: 'forbidden', message: 'Denied by policy "freeze": frozen' });
    await writeFile(config, configText(CEL_POLICIES));
  });

  it('`aperture policy test` prints the decision and the rule that made it', async () => {
    const config = path.join(dir, 'aperture.yaml');
    const test = (...args: string[]) =>
      exec(process.execPath, [CLI, 'policy', 'test', '--config', config, ...args]);
    const denied = await test('--as', 'bob', '--tool', 'demo:repo_write', '--args', '{"repo":"evil/x"}');
    expect(denied.stdout).toBe('deny by rule "no-other-repos" (cel): only acme repositories\n');
    const allowed = await test(
      '--as',
      'alice',
      '--tool',
      'demo:repo_write',
      '--args',
      '{"repo":"acme/x"}',
      '--json',
    );
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      effect: 'allow',
      rule: 'acme-only',
      hidden: false,
      toolKnown: true,
    });
    const hidden = await test('--as', 'bob', '--tool', 'demo:secret_read', '--surface', 'rest');
    expect(hidden.stdout).toContain('deny by rule "bob-no-secrets"');
    expect(hidden.stdout).toContain('hidden: demo:secret_read');
  });

  it('hides from the one-shot commands a tool a rule denies to the caller `cli` for every argument', async () => {
    const hiding = await writeDir([
      ...CEL_POLICIES.slice(0, 2),
      '    - { name: no-cli-secrets, effect: deny, tools: ["demo:secret_read"], when: caller.identity == "cli" }',
      ...CEL_POLICIES.slice(2),
    ]);
    const config = path.join(hiding, 'aperture.yaml');
    const cli = (...args: string[]) =>
      exec(process.execPath, [CLI, ...args, '--config', config]).catch(
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const listed = await cli('list', '--json');
    const ids = (JSON.parse(listed.stdout) as { tools: { id: string }[] }).tools.map((tool) => tool.id);
    expect(ids).toContain('demo:repo_read');
    expect(ids).not.toContain('demo:secret_read');
    const found = JSON.parse((await cli('search', 'secret vault', '--json')).stdout) as {
      tools: { id: string }[];
    };
    expect(found.tools.map((tool) => tool.id)).not.toContain('demo:secret_read');
    const exported = JSON.parse((await cli('export', '--format', 'mcp')).stdout) as unknown;
    expect(JSON.stringify(exported)).not.toContain('secret_read');
    expect(JSON.stringify(exported)).toContain('repo_read');
    for (const args of [
      ['describe', 'demo:secret_read'],
      ['run', 'demo:secret_read'],
    ]) {
      const refused = await cli(...args);
      expect(refused, args[0]).toMatchObject({ code: 2 });
      expect((refused as { stderr: string }).stderr, args[0]).toContain('tool_not_found');
    }
  });

  it("`config validate` runs the rules' examples and names one that fails", async () => {
    const { stdout } = await exec(process.execPath, [
      CLI,
      'config',
      'validate',
      path.join(dir, 'aperture.yaml'),
    ]);
    expect(stdout).toContain('valid');
    const wrong = CEL_POLICIES.map((line) => line.replace('surface: code, expect: deny', 'expect: allow'));
    const bad = await writeDir(wrong);
    const failed = await exec(process.execPath, [
      CLI,
      'config',
      'validate',
      path.join(bad, 'aperture.yaml'),
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain(
      'policies.rules.1.examples.1 (rule "acme-only"): bob calling demo:repo_write expects allow, got deny by rule "no-other-repos"',
    );
  });

  it.each([
    {
      what: 'a rule that does not compile',
      policies: ['policies:', '  - { name: bad-syntax, effect: deny, when: "args.repo.startsWith(" }'],
      message: /policies\.rules\[0\]\.when: rule "bad-syntax": .* at line 1, column 22/,
    },
    {
      what: 'an unknown variable',
      policies: ['policies:', '  - { name: typo, effect: deny, when: "caller.admin && arg.repo == 1" }'],
      message: /policies\.rules\[0\]\.when: rule "typo": Unknown variable: arg at line 1, column 17/,
    },
    {
      what: 'a Cedar file that does not parse',
      policies: ['policies: { cedar: ./bad.cedar }'],
      files: { 'bad.cedar': 'permit(principal, action, resource' },
      message: /policies\.cedar: \.\/bad\.cedar does not parse at line 1, column \d+/,
    },
  ])(
    'refuses $what at load, naming where (config validate and serve)',
    async ({ policies, files, message }) => {
      const bad = await writeDir(policies, files ?? {});
      const config = path.join(bad, 'aperture.yaml');
      for (const args of [
        ['config', 'validate', config],
        ['serve', '--port', '0', '--config', config],
      ]) {
        const failed = await exec(process.execPath, [CLI, ...args], { timeout: 20_000 }).catch(
          (error: { code: number; stderr: string }) => error,
        );
        expect(failed, args[0]).toMatchObject({ code: 2 });
        expect((failed as { stderr: string }).stderr).toMatch(message);
      }
    },
  );
});
