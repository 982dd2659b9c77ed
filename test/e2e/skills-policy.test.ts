// biome-ignore-all lint/suspicious/noTemplateCurlyInString: skill step arguments hold ${…} templates on purpose.
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { GetSkillResultSchema } from '@modelcontextprotocol/core/ext/skills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectForSkills } from '../support/skills-connect.js';
import { ROOT, type RunningGateway, startReadyGateway } from './gateway-process.js';

/**
 * Policies over the Skills extension (SEP-2640) through `aperture serve`, seen from outside with
 * the official SDK's `SkillsClient`: a skill is the action `<namespace>:skills/get` with
 * `{ name }`. A rule that denies one skill of a server to one key hides it from that key — absent
 * from `skills/list`, `search_tools` and the passthrough's `resources/list`, its get and file reads
 * answered as for a skill that does not exist — while the server's other skills, and every skill
 * for a key the rule does not name, work as before. With `hideDenied: false` the skill is listed
 * and its get and reads are refused `forbidden`; an `approve` rule behaves as for a prompts/get.
 */

const SERVER = path.join(ROOT, 'test/fixtures/skills/skills-server.mjs');
const RESTRICTED = 'skills-restricted-key-0123456789abcdef';
const OTHER = 'skills-other-key-0123456789abcdef';
const ADMIN = 'skills-admin-key-0123456789abcdef';

/** A stdio fixture server of skills (`pdf-tools`, `<label>-notes`), as the config names one. */
const fixture = (label: string) => ({ command: process.execPath, args: [SERVER, label] });

/** The JSON-RPC error a request failed with. */
async function failure(
  promise: Promise<unknown>,
): Promise<{ code?: number; message: string; data?: { code?: string } }> {
  return promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (error: { code?: number; message: string; data?: { code?: string } }) => error,
  );
}

const uris = (skills: readonly Skill[]) => skills.map((skill) => skill.uri).sort();

describe('a policy rule that denies one skill (hideDenied, the default)', () => {
  let gateway: RunningGateway;
  const clients: Client[] = [];

  const connect = (key: string, mode: 'auto' | 'legacy' = 'auto') =>
    connectForSkills(gateway.url, key, mode, clients, 'skills-policy-e2e');

  beforeAll(async () => {
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { alpha: fixture('alpha'), beta: fixture('beta') },
        skills: [
          {
            name: 'echo_twice',
            description: 'Echo a text twice through the alpha server.',
            input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            steps: [{ id: 'one', tool: 'alpha:alpha_echo', args: { text: '${inputs.text}' } }],
          },
        ],
        auth: {
          apiKeys: [
            { name: 'restricted', key: RESTRICTED },
            { name: 'other', key: OTHER },
            { name: 'admin', key: ADMIN, admin: true },
          ],
        },
        policies: {
          rules: [
            {
              name: 'no-beta-pdf',
              effect: 'deny',
              tools: ['beta:skills/get'],
              when: 'caller.identity == "restricted" && args.name == "pdf-tools"',
              reason: 'not for this key',
            },
            {
              // Configured skills are the gateway's namespace `skill`, named as the client sees them.
              name: 'no-echo',
              effect: 'deny',
              tools: ['skill:skills/get'],
              when: 'caller.identity == "restricted" && args.name == "echo-twice"',
            },
          ],
        },
        observability: { logLevel: 'warn' },
      },
      'aperture-skills-policy-',
    );
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await gateway?.[Symbol.asyncDispose]();
  });

  it('leaves the denied skills out of skills/list for that key, in both eras', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const { skills } = await connect(RESTRICTED, mode);
      expect(uris((await skills.list()).skills)).toEqual([
        'skill://alpha/alpha-notes/SKILL.md',
        'skill://alpha/pdf-tools/SKILL.md',
        'skill://beta/beta-notes/SKILL.md',
      ]);
    }
  });

  it('answers the denied skill’s get exactly as a skill that does not exist', async () => {
    const { client } = await connect(RESTRICTED);
    const get = (uri: string) =>
      failure(client.request({ method: 'skills/get', params: { uri } }, GetSkillResultSchema));
    const denied = await get('skill://beta/pdf-tools/SKILL.md');
    const missing = await get('skill://beta/no-such-skill/SKILL.md');
    expect(denied.code).toBe(-32602);
    expect(denied.data).toEqual({ code: 'tool_not_found', uri: 'skill://beta/pdf-tools/SKILL.md' });
    expect({ ...denied, message: denied.message.replace('pdf-tools', '<skill>') }).toMatchObject({
      code: missing.code,
      message: missing.message.replace('no-such-skill', '<skill>'),
    });
    expect(denied.message).not.toMatch(/policy|denied/i);
    const configured = await get('skill://skill/echo-twice/SKILL.md');
    expect(configured).toMatchObject({ code: -32602, data: { code: 'tool_not_found' } });
  });

  it('does not count unknown or hidden skills against the server’s circuit breaker', async () => {
    const { client, skills } = await connect(RESTRICTED);
    // Well past the breaker's threshold (5 consecutive failures): each is the server's -32602 or
    // the gateway's own answer, and the server is up.
    for (let i = 0; i < 8; i++) {
      const uri = i % 2 === 0 ? `skill://beta/missing-${i}/SKILL.md` : 'skill://beta/pdf-tools/SKILL.md';
      const refused = await failure(
        client.request({ method: 'skills/get', params: { uri } }, GetSkillResultSchema),
      );
      expect(refused.code).toBe(-32602);
      await failure(client.readResource({ uri: `skill://beta/missing-${i}/GUIDE.md` }));
    }
    expect((await skills.get('skill://beta/beta-notes/SKILL.md')).skill.frontmatter.name).toBe('beta-notes');
    const echoed = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'beta:beta_echo', args: { text: 'still up' } },
    });
    expect(echoed.isError).toBeFalsy();
    expect(JSON.stringify(echoed.content)).toContain('still up');
  });

  it('refuses reading the denied skill’s files, its directory, and the configured skill’s manifest', async () => {
    const { client, skills } = await connect(RESTRICTED);
    for (const uri of [
      'skill://beta/pdf-tools/SKILL.md',
      'skill://beta/pdf-tools/references/GUIDE.md',
      'skill://skill/echo-twice/SKILL.md',
    ]) {
      const refused = await failure(client.readResource({ uri }));
      expect(refused.code).toBe(-32602);
      expect(refused.message).toContain(`Resource not found: ${uri}`);
      expect(refused.data).toMatchObject({ code: 'tool_not_found' });
    }
    await expect(skills.readDirectory('skill://beta/pdf-tools/references')).rejects.toThrow(
      /not a directory resource/,
    );
    // Named in its server's own form, the passthrough would relay it: refused all the same (alpha
    // lists that URI too, and the read cannot tell whose it is).
    const own = await failure(client.readResource({ uri: 'skill://pdf-tools/SKILL.md' }));
    expect(own).toMatchObject({ code: -32602, data: { code: 'tool_not_found' } });
    expect(own.message).toContain('Resource not found: skill://pdf-tools/SKILL.md');
    // A 2025-11-25 session's subscription to it is unknown too.
    const legacy = (await connect(RESTRICTED, 'legacy')).client;
    for (const uri of ['skill://beta/pdf-tools/SKILL.md', 'skill://skill/echo-twice/SKILL.md']) {
      const subscribed = await failure(legacy.subscribeResource({ uri }));
      expect(subscribed).toMatchObject({ code: -32602, data: { code: 'tool_not_found' } });
    }
    // Another skill's subscription is relayed to the server (which serves no subscriptions: -32601),
    // and so is the hidden one for a key the rule does not name.
    const relayed = await failure(legacy.subscribeResource({ uri: 'skill://beta/beta-notes/SKILL.md' }));
    expect(relayed.code).toBe(-32601);
    const otherKey = (await connect(OTHER, 'legacy')).client;
    const forOther = await failure(otherKey.subscribeResource({ uri: 'skill://beta/pdf-tools/SKILL.md' }));
    expect(forOther.code).toBe(-32601);
  });

  it('leaves the denied skill’s files out of resources/list and its entry out of search_tools', async () => {
    const { client } = await connect(RESTRICTED);
    const listed = (await client.listResources()).resources.map((resource) => resource.uri);
    // The servers list their skills' manifests as resources too: the denied one is left out.
    expect(listed).toContain('skill://beta/beta-notes/SKILL.md');
    expect(listed).toContain('skill://alpha/pdf-tools/SKILL.md');
    expect(listed.filter((uri) => uri.startsWith('skill://beta/pdf-tools/'))).toEqual([]);
    const search = await client.callTool({ name: 'search_tools', arguments: { query: 'pdf forms' } });
    const hits = (search.structuredContent as { skills?: { kind: string; uri: string }[] }).skills ?? [];
    expect(hits.map((hit) => [hit.kind, hit.uri])).toEqual([['skill', 'skill://alpha/pdf-tools/SKILL.md']]);
  });

  it('leaves the denied skill’s files out of the manifest for that key only', async () => {
    const manifest = async (key: string) => {
      const response = await fetch(`${gateway.url}/.well-known/mcp/manifest.json`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      return (
        ((await response.json()) as { resources?: { uri: string }[] }).resources?.map((r) => r.uri) ?? []
      );
    };
    const restricted = await manifest(RESTRICTED);
    expect(restricted).toContain('skill://beta/beta-notes/SKILL.md');
    expect(restricted.filter((uri) => uri.startsWith('skill://beta/pdf-tools/'))).toEqual([]);
    expect(await manifest(OTHER)).toContain('skill://beta/pdf-tools/SKILL.md');
  });

  it('still serves that key the server’s other skills, files verified against their digests', async () => {
    const { skills } = await connect(RESTRICTED);
    const { skill } = await skills.get('skill://alpha/pdf-tools/SKILL.md');
    const guide = await skills.read(skill, 'references/GUIDE.md');
    expect(guide.verified).toBe(true);
    expect(guide.text).toContain('Guide (alpha)');
    const notes = await skills.get('skill://beta/beta-notes/SKILL.md');
    expect((await skills.read(notes.skill)).verified).toBe(true);
  });

  it('serves the denied skill to a key the rule does not name, through the gate (activity feed)', async () => {
    const { client, skills } = await connect(OTHER);
    expect(uris((await skills.list()).skills)).toHaveLength(5);
    const { skill } = await skills.get('skill://beta/pdf-tools/SKILL.md');
    const guide = await skills.read(skill, 'references/GUIDE.md');
    expect(guide.verified).toBe(true);
    expect(guide.text).toContain('Guide (beta)');
    // The server's own form reaches it through the passthrough, for this key.
    const own = await client.readResource({ uri: 'skill://pdf-tools/SKILL.md' });
    expect((own.contents[0] as { text?: string } | undefined)?.text).toMatch(/name: pdf-tools/);
    expect((await skills.read((await skills.get('skill://skill/echo-twice/SKILL.md')).skill)).verified).toBe(
      true,
    );
    const listed = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(listed).toContain('skill://beta/pdf-tools/SKILL.md');
    // The get and the read passed the stages of tool calls: the activity feed counts them.
    const stats = (await (
      await fetch(`${gateway.url}/api/admin/activity/stats`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      })
    ).json()) as { tools: { tool: string; calls: number }[] };
    expect(stats.tools.find((entry) => entry.tool === 'beta:skills/get')?.calls).toBeGreaterThanOrEqual(2);
    expect(stats.tools.find((entry) => entry.tool === 'skill:skills/get')?.calls).toBeGreaterThanOrEqual(2);
  });
});

describe('a policy rule over skills with hideDenied: false', () => {
  let gateway: RunningGateway;
  let client: Client;
  const clients: Client[] = [];

  /** A 2025-11-25 client that declared elicitation and answers an approval form with `action`. */
  async function answering(action: 'accept' | 'decline', asked: string[]): Promise<Client> {
    const answerer = new Client(
      { name: 'skills-policy-approver', version: '1' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'legacy' } },
    );
    answerer.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: unknown }).message));
      return action === 'accept' ? { action: 'accept', content: {} } : { action };
    });
    await answerer.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${RESTRICTED}` } },
      }),
    );
    clients.push(answerer);
    return answerer;
  }

  beforeAll(async () => {
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { beta: fixture('beta') },
        auth: { apiKeys: [{ name: 'restricted', key: RESTRICTED }] },
        policies: {
          hideDenied: false,
          rules: [
            { name: 'no-pdf', effect: 'deny', tools: ['beta:skills/get'], when: 'args.name == "pdf-tools"' },
            // Held for a person's answer, asked through the client's elicitation as for a prompts/get.
            {
              name: 'ask-notes',
              effect: 'approve',
              tools: ['beta:skills/get'],
              when: 'args.name == "beta-notes"',
            },
          ],
        },
        approvals: { timeoutMs: 5000 },
        observability: { logLevel: 'warn' },
      },
      'aperture-skills-policy-shown-',
    );
    client = new Client({ name: 'skills-policy-shown', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${RESTRICTED}` } },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    for (const answerer of clients) await answerer.close().catch(() => {});
    await gateway?.[Symbol.asyncDispose]();
  });

  it('lists the skill, and refuses its get and its file reads forbidden, naming the rule', async () => {
    const skills = new SkillsClient(client);
    expect(uris((await skills.list()).skills)).toEqual([
      'skill://beta/beta-notes/SKILL.md',
      'skill://beta/pdf-tools/SKILL.md',
    ]);
    const get = await failure(
      client.request(
        { method: 'skills/get', params: { uri: 'skill://beta/pdf-tools/SKILL.md' } },
        GetSkillResultSchema,
      ),
    );
    expect(get).toMatchObject({ code: -32000, data: { code: 'forbidden' } });
    expect(get.message).toContain('Denied by policy "no-pdf"');
    // In the client's form, and in the server's own (which the passthrough of a single server relays).
    for (const uri of [
      'skill://beta/pdf-tools/SKILL.md',
      'skill://beta/pdf-tools/references/GUIDE.md',
      'skill://pdf-tools/references/GUIDE.md',
    ]) {
      const read = await failure(client.readResource({ uri }));
      expect(read).toMatchObject({ code: -32000, data: { code: 'forbidden' } });
      expect(read.message).toContain('Denied by policy "no-pdf"');
    }
  });

  it('holds an approve rule’s skill for the client’s answer: accept serves it, decline refuses it', async () => {
    const asked: string[] = [];
    const approver = await answering('accept', asked);
    const accepting = new SkillsClient(approver);
    const { skill } = await accepting.get('skill://beta/beta-notes/SKILL.md');
    expect(skill.frontmatter.name).toBe('beta-notes');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('beta:skills/get');
    expect(asked[0]).toContain('beta-notes');
    // Reading its file is the same action: asked again.
    expect((await accepting.read(skill)).verified).toBe(true);
    expect(asked).toHaveLength(2);
    // And so is the server's own form of it, relayed by the passthrough.
    expect((await approver.readResource({ uri: 'skill://beta-notes/SKILL.md' })).contents).toHaveLength(1);
    expect(asked).toHaveLength(3);
    const declining = await answering('decline', []);
    const refused = await failure(
      declining.request(
        { method: 'skills/get', params: { uri: 'skill://beta/beta-notes/SKILL.md' } },
        GetSkillResultSchema,
      ),
    );
    expect(refused.data).toMatchObject({ code: 'approval_denied' });
  });
});
