import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../foundation/model/tool.js';
import { silentLogger } from '../../../foundation/ports/logger.js';
import type { DownstreamSkills, SkillListing } from '../../../sources/mcp/downstream-skills.js';
import { GatewaySkills, type SkillServer, type SkillView } from './gateway-skills.js';

const DIGEST = `sha256:${'0'.repeat(64)}`;

function entry(uri: string, name: string, description = `About ${name}`): Skill {
  return {
    uri,
    frontmatter: { name, description },
    resources: [
      { uri, digest: DIGEST, size: 10 },
      { uri: uri.replace('SKILL.md', 'GUIDE.md'), digest: DIGEST, size: 5 },
    ],
  };
}

/** A server's skills as `DownstreamSkills` would give them, recording the URIs asked for. */
function fakeSkills(listing: () => Promise<SkillListing>, asked: string[] = []): DownstreamSkills {
  return {
    offered: true,
    list: listing,
    get: async (uri: string) => {
      asked.push(`get ${uri}`);
      const found = (await listing()).skills.find((s) => s.uri === uri);
      if (!found) throw Object.assign(new Error('No skill'), { code: -32602 });
      return { skill: found, ttlMs: 5000, cacheScope: 'public' as const };
    },
    read: async (uri: string) => {
      asked.push(`read ${uri}`);
      return { contents: [{ uri, text: 'hello' }] };
    },
  } as unknown as DownstreamSkills;
}

function server(name: string, skills: DownstreamSkills, prefix = true): SkillServer {
  return { name, namespace: name, sourceId: `mcp:${name}`, prefix, skills };
}

/** A view whose scope shows tools of these sources. */
function view(sources: string[], confined: boolean): SkillView {
  const tools = sources.map((sourceId) => ({ origin: { sourceId } }) as Tool);
  return {
    confined,
    scope: {
      tools: () => tools,
      get: () => {
        throw new Error('not visible');
      },
    },
  };
}

describe('GatewaySkills', () => {
  const alphaAsked: string[] = [];
  const alpha = server(
    'alpha',
    fakeSkills(async () => ({ skills: [entry('skill://pdf/SKILL.md', 'pdf')], ttlMs: 60_000 }), alphaAsked),
  );
  const beta = server(
    'beta',
    fakeSkills(async () => ({ skills: [entry('skill://pdf/SKILL.md', 'pdf', 'Beta PDFs')], ttlMs: 2000 })),
  );
  const broken = server(
    'broken',
    fakeSkills(() => Promise.reject(new Error('down'))),
  );
  const plain = server(
    'plain',
    fakeSkills(async () => ({ skills: [entry('skill://csv/SKILL.md', 'csv')] })),
    false,
  );
  const skills = new GatewaySkills({
    servers: () => [alpha, beta, broken, plain],
    configured: () => undefined,
    log: silentLogger,
  });
  const everyone = view([], false);

  it('lists every server’s skills namespaced (digests kept), and answers without a failing server', async () => {
    const { skills: listed, ttlMs, cacheScope } = await skills.list(everyone);
    expect(listed.map((s) => s.uri)).toEqual([
      'skill://alpha/pdf/SKILL.md',
      'skill://beta/pdf/SKILL.md',
      'skill://csv/SKILL.md',
    ]);
    expect(listed[0]?.resources).toEqual([
      { uri: 'skill://alpha/pdf/SKILL.md', digest: DIGEST, size: 10 },
      { uri: 'skill://alpha/pdf/GUIDE.md', digest: DIGEST, size: 5 },
    ]);
    expect(listed[0]?.frontmatter).toEqual({ name: 'pdf', description: 'About pdf' });
    expect(listed[0]?._meta).toEqual({ 'io.aperture/server': 'alpha' });
    expect(listed[2]?._meta).toEqual({ 'io.aperture/server': 'plain' });
    // The smallest TTL of the sources; a source without one (plain) counts as 0.
    expect({ ttlMs, cacheScope }).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });

  it('gets and reads from the right server with its own URI, naming contents for the client', async () => {
    alphaAsked.length = 0;
    const got = await skills.get('skill://alpha/pdf/SKILL.md', everyone);
    expect(got?.skill.uri).toBe('skill://alpha/pdf/SKILL.md');
    expect(got?.ttlMs).toBe(5000);
    const read = await skills.read('skill://alpha/pdf/GUIDE.md', everyone);
    expect(read?.contents).toEqual([{ uri: 'skill://alpha/pdf/GUIDE.md', text: 'hello' }]);
    expect(alphaAsked).toEqual(['get skill://pdf/SKILL.md', 'read skill://pdf/GUIDE.md']);
    // An unprefixed server's URI is its own, found by its listing.
    expect((await skills.read('skill://csv/GUIDE.md', everyone))?.contents[0]?.uri).toBe(
      'skill://csv/GUIDE.md',
    );
  });

  it('knows nothing of URIs no visible server serves', async () => {
    expect(await skills.get('skill://gamma/pdf/SKILL.md', everyone)).toBeUndefined();
    expect(await skills.read('skill://nothing/SKILL.md', everyone)).toBeUndefined();
    expect(await skills.read('https://example.com/x', everyone)).toBeUndefined();
  });

  it('shows a confined caller only the skills of servers whose tools it sees', async () => {
    const confined = view(['mcp:beta'], true);
    expect((await skills.list(confined)).skills.map((s) => s.uri)).toEqual(['skill://beta/pdf/SKILL.md']);
    expect(await skills.get('skill://alpha/pdf/SKILL.md', confined)).toBeUndefined();
    expect(await skills.read('skill://alpha/pdf/GUIDE.md', confined)).toBeUndefined();
  });

  it('finds skills by words of their name and description, marked kind skill', async () => {
    const hits = await skills.search('beta pdf', everyone);
    expect(hits.map((h) => [h.kind, h.uri, h.server])).toEqual([
      ['skill', 'skill://beta/pdf/SKILL.md', 'beta'],
      ['skill', 'skill://alpha/pdf/SKILL.md', 'alpha'],
    ]);
    expect(await skills.search('', everyone)).toEqual([]);
  });
});

describe('GatewaySkills with two unprefixed servers listing one URI', () => {
  it('keeps the first configured server’s skill and says once that the other was left out', async () => {
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (_obj: object, msg?: string) => void warnings.push(msg ?? '') };
    const listing = (description: string) => async () => ({
      skills: [entry('skill://pdf/SKILL.md', 'pdf', description)],
    });
    const skills = new GatewaySkills({
      servers: () => [
        server('first', fakeSkills(listing('First')), false),
        server('second', fakeSkills(listing('Second')), false),
      ],
      configured: () => undefined,
      log,
    });
    const everyone = view([], false);
    for (let i = 0; i < 2; i++) {
      const { skills: listed } = await skills.list(everyone);
      expect(listed.map((s) => [s.uri, s.frontmatter.description])).toEqual([
        ['skill://pdf/SKILL.md', 'First'],
      ]);
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/same URI/);
  });
});
