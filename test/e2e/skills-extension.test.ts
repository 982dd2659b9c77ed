// biome-ignore-all lint/suspicious/noTemplateCurlyInString: skill step arguments hold ${…} templates on purpose.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { GetSkillResultSchema } from '@modelcontextprotocol/core/ext/skills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningFixture } from '../support/listening-fixture.js';
import { connectForSkills } from '../support/skills-connect.js';
import {
  ROOT,
  type RunningGateway,
  startHttpGateway,
  startReadyGateway,
  stopProcess,
} from './gateway-process.js';

/**
 * The Skills extension (SEP-2640) through `aperture serve`, as a host sees it with the official
 * SDK's `SkillsClient`: two downstream servers of skills (`alpha`, `beta`, both with a skill
 * `pdf-tools`), a third whose `skills/list` fails (`broken`), and a configured skill. Each is
 * namespaced in its `skill://` URI, every file read through the gateway verifies against the
 * server's own digest, and a key confined to a toolset sees only its share.
 */

const SERVER = path.join(ROOT, 'test/fixtures/skills/skills-server.mjs');
const FULL_KEY = 'skills-full-key-0123456789abcdef';
const ALPHA_KEY = 'skills-alpha-key-0123456789abcdef';
const NO_BETA_KEY = 'skills-no-beta-key-0123456789abcdef';

describe('Skills extension through the gateway', () => {
  let dir: string;
  let gateway: RunningGateway;
  const clients: Client[] = [];

  /** A v2 SDK client with `key`: `auto` negotiates 2026-07-28, `legacy` speaks 2025-11-25. */
  const connect = (key: string, mode: 'auto' | 'legacy' = 'auto') =>
    connectForSkills(gateway.url, key, mode, clients);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-skills-'));
    const q = (value: string) => JSON.stringify(value);
    const server = (label: string, ...extra: string[]) =>
      `{ command: ${q(process.execPath)}, args: [${[SERVER, label, ...extra].map(q).join(', ')}] }`;
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'tools: { builtin: false }',
        'servers:',
        `  alpha: ${server('alpha')}`,
        `  beta: ${server('beta')}`,
        `  broken: ${server('broken', '--failing')}`,
        'skills:',
        '  - name: echo_twice',
        '    description: Echo a text twice through the alpha server.',
        '    input: { type: object, properties: { text: { type: string } }, required: [text] }',
        '    steps:',
        '      - { id: one, tool: "alpha:alpha_echo", args: { text: "${inputs.text}" } }',
        '      - { id: two, tool: "alpha:alpha_echo", args: { text: "${inputs.text}" } }',
        'toolsets:',
        '  - { name: alpha-only, namespaces: [alpha] }',
        'auth:',
        '  apiKeys:',
        `    - { name: full, key: ${q(FULL_KEY)} }`,
        `    - { name: alpha-user, key: ${q(ALPHA_KEY)}, toolsets: [alpha-only] }`,
        `    - { name: no-beta, key: ${q(NO_BETA_KEY)} }`,
        'policies:',
        '  - { name: hide-beta, effect: deny, tools: ["beta:*"], when: \'caller.identity == "no-beta"\' }',
        'observability: { logLevel: warn }',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${gateway.url}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`gateway not ready:\n${gateway.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await gateway?.[Symbol.asyncDispose]();
  });

  const uris = (skills: readonly Skill[]) => skills.map((skill) => skill.uri).sort();

  it('lists the skills of both servers and the configured one together, each namespaced', async () => {
    const { client, skills } = await connect(FULL_KEY);
    expect(skills.supported).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(uris(listing.skills)).toEqual([
      'skill://alpha/alpha-notes/SKILL.md',
      'skill://alpha/pdf-tools/SKILL.md',
      'skill://beta/beta-notes/SKILL.md',
      'skill://beta/pdf-tools/SKILL.md',
      'skill://skill/echo-twice/SKILL.md',
    ]);
    // The same skill name from two servers, told apart by the namespace; frontmatter untouched.
    const pdf = listing.skills.filter((skill) => skill.frontmatter.name === 'pdf-tools');
    expect(pdf.map((skill) => skill.frontmatter.description).sort()).toEqual([
      'Fill and merge PDF forms (alpha edition)',
      'Fill and merge PDF forms (beta edition)',
    ]);
    // A 2026-07-28 client gets the caching fields; the broken server's failure is only logged.
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(listing.cacheScope).toBe('private');
    // The servers' skill files are their resources too: `resources/list` (relayed in every
    // exposure mode) names them as `skills/list` does, and a read of either name is one file.
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    for (const uri of uris(listing.skills).filter((u) => /^skill:\/\/(alpha|beta)\//.test(u))) {
      expect(listed).toContain(uri);
    }
    expect(gateway.stderr()).toContain('skills/list of a server failed');
  });

  it('answers a raw 2026-07-28 skills/list with resultType complete and the caching fields', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${FULL_KEY}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'skills/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: { _meta: meta } }),
    });
    const text = await response.text();
    const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
    const { result } = JSON.parse(json) as {
      result: { resultType?: string; ttlMs?: number; cacheScope?: string; skills: unknown[] };
    };
    expect(result.resultType).toBe('complete');
    expect(result.cacheScope).toBe('private');
    expect(typeof result.ttlMs).toBe('number');
    expect(result.skills).toHaveLength(5);
  });

  it('gets a skill with its files and digests, and every file read verifies against them', async () => {
    const { skills } = await connect(FULL_KEY);
    const { skill } = await skills.get('skill://beta/pdf-tools/SKILL.md');
    expect(skill.resources).not.toBe('dynamic');
    const files = skill.resources as Exclude<Skill['resources'], 'dynamic'>;
    expect(files.map((file) => file.uri).sort()).toEqual([
      'skill://beta/pdf-tools/SKILL.md',
      'skill://beta/pdf-tools/references/GUIDE.md',
    ]);
    // SkillsClient.read checks size and digest of the bytes the gateway relays.
    const guide = await skills.read(skill, 'references/GUIDE.md');
    expect(guide.verified).toBe(true);
    expect(guide.text).toBe('# Guide (beta)\n\nStep one: open the form.\n');
    const digest = `sha256:${createHash('sha256').update(guide.bytes).digest('hex')}`;
    expect(files.find((file) => file.uri.endsWith('GUIDE.md'))?.digest).toBe(digest);
    const manifest = await skills.read(skill);
    expect(manifest.frontmatter).toEqual({
      name: 'pdf-tools',
      description: 'Fill and merge PDF forms (beta edition)',
    });
    expect(manifest.body).toContain('# PDF tools from beta');
  });

  it('lists a skill directory of a server that serves directories, named for the client', async () => {
    const { skills } = await connect(FULL_KEY);
    expect(skills.directoryRead).toBe(true);
    const { resources } = await skills.readDirectory('skill://beta/pdf-tools/references');
    expect(resources.map((resource) => resource.uri)).toEqual(['skill://beta/pdf-tools/references/GUIDE.md']);
    await expect(skills.readDirectory('skill://gamma/pdf-tools')).rejects.toThrow(/not a directory resource/);
  });

  it('serves the configured skill as a SKILL.md that verifies', async () => {
    const { skills } = await connect(FULL_KEY);
    const { skill } = await skills.get('skill://skill/echo-twice/SKILL.md');
    expect(skill._meta?.['io.aperture/toolId']).toBe('skill:echo_twice');
    const manifest = await skills.read(skill);
    expect(manifest.verified).toBe(true);
    expect(manifest.frontmatter).toEqual({
      name: 'echo-twice',
      description: 'Echo a text twice through the alpha server.',
    });
    expect(manifest.body).toContain('run_skill');
    expect(manifest.body).toContain('alpha:alpha_echo');
  });

  it('answers an unknown skill with -32602 and the stable code tool_not_found', async () => {
    const { client } = await connect(FULL_KEY);
    for (const uri of ['skill://alpha/no-such-skill/SKILL.md', 'skill://gamma/pdf-tools/SKILL.md']) {
      const failure = await client
        .request({ method: 'skills/get', params: { uri } }, GetSkillResultSchema)
        .then(
          () => undefined,
          (error: unknown) => error as { code?: number; data?: { code?: string } },
        );
      expect(failure?.code).toBe(-32602);
      expect(failure?.data?.code).toBe('tool_not_found');
    }
    await expect(client.readResource({ uri: 'skill://gamma/pdf-tools/SKILL.md' })).rejects.toThrow(
      /Resource not found/,
    );
  });

  it('shows a key confined to a toolset only the skills of its servers', async () => {
    const { skills } = await connect(ALPHA_KEY);
    const listing = await skills.list();
    expect(uris(listing.skills)).toEqual([
      'skill://alpha/alpha-notes/SKILL.md',
      'skill://alpha/pdf-tools/SKILL.md',
    ]);
    await expect(skills.get('skill://beta/pdf-tools/SKILL.md')).rejects.toThrow(/No skill is served/);
    await expect(skills.get('skill://skill/echo-twice/SKILL.md')).rejects.toThrow(/No skill is served/);
    const { skill } = await skills.get('skill://alpha/pdf-tools/SKILL.md');
    expect((await skills.read(skill, 'references/GUIDE.md')).verified).toBe(true);
  });

  it('hides the skills of a server whose tools a policy hides from the caller', async () => {
    const { skills } = await connect(NO_BETA_KEY);
    expect(uris((await skills.list()).skills)).toEqual([
      'skill://alpha/alpha-notes/SKILL.md',
      'skill://alpha/pdf-tools/SKILL.md',
      'skill://skill/echo-twice/SKILL.md',
    ]);
    await expect(skills.get('skill://beta/pdf-tools/SKILL.md')).rejects.toThrow(/No skill is served/);
  });

  it('serves a 2025-11-25 client the same skills, without caching fields', async () => {
    const { client, skills } = await connect(FULL_KEY, 'legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const listing = await skills.list();
    expect(uris(listing.skills)).toHaveLength(5);
    expect(listing.ttlMs).toBeUndefined();
  });

  it('finds skills with search_tools, marked kind "skill", beside the tools', async () => {
    const { client } = await connect(FULL_KEY);
    const result = await client.callTool({ name: 'search_tools', arguments: { query: 'pdf forms' } });
    const found = result.structuredContent as {
      tools: unknown[];
      skills?: { kind: string; uri: string; server?: string }[];
    };
    expect(Array.isArray(found.tools)).toBe(true);
    expect(found.skills?.map((hit) => [hit.kind, hit.uri, hit.server]).slice(0, 2)).toEqual([
      ['skill', 'skill://alpha/pdf-tools/SKILL.md', 'alpha'],
      ['skill', 'skill://beta/pdf-tools/SKILL.md', 'beta'],
    ]);
    const confined = (await connect(ALPHA_KEY)).client;
    const scoped = await confined.callTool({ name: 'search_tools', arguments: { query: 'pdf forms' } });
    expect(
      (scoped.structuredContent as { skills?: { uri: string }[] }).skills?.map((hit) => hit.uri),
    ).toEqual(['skill://alpha/pdf-tools/SKILL.md']);
  });

  it('lists a skill a server adds once the server announces it', async () => {
    const { client, skills } = await connect(FULL_KEY);
    await skills.list();
    const added = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'beta:add_skill', args: { name: 'late-skill' } },
    });
    expect(added.isError).toBeFalsy();
    const deadline = Date.now() + 10_000;
    let listed: string[] = [];
    while (Date.now() < deadline) {
      listed = uris((await skills.list()).skills);
      if (listed.includes('skill://beta/late-skill/SKILL.md')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(listed).toContain('skill://beta/late-skill/SKILL.md');
  });
});

/**
 * Flat exposure, where the passthrough serves the servers' resources: skill files are still read
 * through the extension's names, and a server with `prefix: false` keeps its own URIs.
 */
describe('Skills extension beside the flat passthrough, with an unprefixed server', () => {
  let dir: string;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-skills-flat-'));
    const q = (value: string) => JSON.stringify(value);
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'tools: { builtin: false }',
        'servers:',
        `  alpha: { command: ${q(process.execPath)}, args: [${q(SERVER)}, alpha] }`,
        `  plain: { command: ${q(process.execPath)}, args: [${q(SERVER)}, plain], prefix: false }`,
        'exposure: flat',
        'observability: { logLevel: warn }',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${gateway.url}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`gateway not ready:\n${gateway.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    client = new Client({ name: 'skills-flat', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  }, 60_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await gateway?.[Symbol.asyncDispose]();
  });

  it('lists prefixed and unprefixed skills, and reads each from its server with its digests', async () => {
    const skills = new SkillsClient(client);
    const listing = await skills.list();
    expect(listing.skills.map((skill) => skill.uri).sort()).toEqual([
      'skill://alpha/alpha-notes/SKILL.md',
      'skill://alpha/pdf-tools/SKILL.md',
      'skill://pdf-tools/SKILL.md',
      'skill://plain-notes/SKILL.md',
    ]);
    for (const uri of ['skill://alpha/pdf-tools/SKILL.md', 'skill://pdf-tools/SKILL.md']) {
      const skill = listing.skills.find((entry) => entry.uri === uri)!;
      const guide = await skills.read(skill, 'references/GUIDE.md');
      expect(guide.verified).toBe(true);
      expect(guide.text).toContain(uri.includes('alpha') ? 'Guide (alpha)' : 'Guide (plain)');
    }
    // The passthrough still answers the servers' own resource listing.
    await expect(client.listResources()).resolves.toBeDefined();
    // Flat tools are there as before.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('alpha__alpha_echo');
  });
});

/**
 * A 2026-07-28 server over Streamable HTTP (stateless, a server per request), in `metatools`
 * exposure: its skills come through to clients of both eras, its caching hint taken into the
 * merged one.
 */
describe('Skills extension from a 2026-07-28 HTTP server', () => {
  let modern: { child: ChildProcess; url: string };
  let _dir: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    modern = await startListeningFixture(path.join(ROOT, 'test/fixtures/skills/modern-skills-server.mjs'));
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { modern: { url: modern.url } },
        exposure: 'metatools',
        observability: { logLevel: 'warn' },
      },
      'aperture-skills-modern-',
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (modern) await stopProcess(modern.child);
  });

  for (const mode of ['auto', 'legacy'] as const) {
    it(`serves its skills to a ${mode === 'auto' ? '2026-07-28' : '2025-11-25'} client, files verified`, async () => {
      const client = new Client({ name: 'skills-modern', version: '1' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
      try {
        const skills = new SkillsClient(client);
        const listing = await skills.list();
        expect(listing.skills.map((skill) => skill.uri)).toEqual(['skill://modern/api-design/SKILL.md']);
        // The server's own hint (30 s) is the merged list's TTL; the scope stays private.
        if (mode === 'auto') expect([listing.ttlMs, listing.cacheScope]).toEqual([30_000, 'private']);
        const style = await skills.read(listing.skills[0]!, 'references/STYLE.md');
        expect(style.verified).toBe(true);
        expect(style.text).toContain('Plural nouns');
      } finally {
        await client.close();
      }
    });
  }
});
