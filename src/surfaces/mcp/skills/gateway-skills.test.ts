import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import { describe, expect, it } from 'vitest';
import type { CompiledSkill } from '../../../composition/skills/compile-skill.js';
import type { SkillCatalog } from '../../../composition/skills/skill-catalog.js';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import type { Tool } from '../../../foundation/model/tool.js';
import { silentLogger } from '../../../foundation/ports/logger.js';
import type { DownstreamSkills, SkillListing } from '../../../sources/mcp/downstream-skills.js';
import { GatewaySkills, HiddenSkillUri, type SkillServer, type SkillView } from './gateway-skills.js';
import type { SkillAction, SkillGate } from './skill-gate.js';

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

/** A gate that hides and refuses the skills `denied` names (`<namespace>:<name>`), recording runs. */
function fakeGate(hidden: string[], refused: string[] = [], ran: string[] = []): SkillGate {
  const key = (skill: SkillAction) => `${skill.target.namespace}:${skill.name}`;
  return {
    mayHide: () => hidden.length > 0,
    hides: (skill) => hidden.includes(key(skill)),
    run: async (skill, _request, execute) => {
      ran.push(`${key(skill)} (${skill.target.sourceId})`);
      if (refused.includes(key(skill))) throw new GatewayError('forbidden', `Denied by policy "x"`);
      return execute(new AbortController().signal);
    },
  };
}

describe('GatewaySkills with a gate (policies)', () => {
  const asked: string[] = [];
  const docs = server(
    'docs',
    fakeSkills(
      async () => ({
        skills: [entry('skill://pdf/SKILL.md', 'pdf'), entry('skill://acme/csv/SKILL.md', 'csv')],
      }),
      asked,
    ),
  );
  const plain = server(
    'plain',
    fakeSkills(async () => ({ skills: [entry('skill://notes/SKILL.md', 'notes')] }), asked),
    false,
  );
  const skills = new GatewaySkills({
    servers: () => [docs, plain],
    configured: () => undefined,
    log: silentLogger,
  });
  const gated = (gate: SkillGate): SkillView => ({ ...view([], false), gate });

  it('leaves a skill the policies hide out of the list and search; the others stay', async () => {
    const hidden = gated(fakeGate(['docs:pdf', 'plain:notes']));
    expect((await skills.list(hidden)).skills.map((s) => s.uri)).toEqual(['skill://docs/acme/csv/SKILL.md']);
    expect((await skills.search('pdf csv notes', hidden)).map((hit) => hit.uri)).toEqual([
      'skill://docs/acme/csv/SKILL.md',
    ]);
    // The same view without a gate lists all three.
    expect((await skills.list(view([], false))).skills).toHaveLength(3);
  });

  it('answers a hidden skill’s get as unknown, and its file reads as hidden, asking no server', async () => {
    asked.length = 0;
    const hidden = gated(fakeGate(['docs:pdf', 'plain:notes']));
    expect(await skills.get('skill://docs/pdf/SKILL.md', hidden)).toBeUndefined();
    await expect(skills.read('skill://docs/pdf/GUIDE.md', hidden)).rejects.toBeInstanceOf(HiddenSkillUri);
    await expect(skills.read('skill://docs/pdf/SKILL.md', hidden)).rejects.toBeInstanceOf(HiddenSkillUri);
    // An unprefixed server's skill: found by its listing, hidden all the same.
    expect(await skills.get('skill://notes/SKILL.md', hidden)).toBeUndefined();
    await expect(skills.read('skill://notes/GUIDE.md', hidden)).rejects.toBeInstanceOf(HiddenSkillUri);
    expect(asked.filter((line) => !line.startsWith('list'))).toEqual([]);
    // The hidden skills' files, as another listing would name them.
    const hiddenFiles = await skills.hiddenFiles(hidden);
    expect(hiddenFiles?.('skill://docs/pdf/GUIDE.md')).toBe(true);
    expect(hiddenFiles?.('skill://notes/SKILL.md')).toBe(true);
    expect(hiddenFiles?.('skill://docs/acme/csv/SKILL.md')).toBe(false);
    expect(hiddenFiles?.('skill://docs/pdfx/SKILL.md')).toBe(false);
    // In its server's own form too (the passthrough of a single server keeps that form).
    expect(hiddenFiles?.('skill://pdf/GUIDE.md')).toBe(true);
    expect(hiddenFiles?.('skill://acme/csv/GUIDE.md')).toBe(false);
    expect(await skills.hiddenFiles(gated(fakeGate([])))).toBeUndefined();
  });

  it('runs a get and each file read through the gate as the skill’s namespace and name', async () => {
    asked.length = 0;
    const ran: string[] = [];
    const open = gated(fakeGate([], [], ran));
    expect((await skills.get('skill://docs/acme/csv/SKILL.md', open))?.skill.uri).toBe(
      'skill://docs/acme/csv/SKILL.md',
    );
    // A file of a listed skill under an organisational prefix: the skill that holds it, not `acme`.
    await skills.read('skill://docs/acme/csv/GUIDE.md', open);
    await skills.read('skill://notes/GUIDE.md', open);
    expect(ran).toEqual(['docs:csv (mcp:docs)', 'docs:csv (mcp:docs)', 'plain:notes (mcp:plain)']);
    expect(asked).toEqual([
      'get skill://acme/csv/SKILL.md',
      'read skill://acme/csv/GUIDE.md',
      'read skill://notes/GUIDE.md',
    ]);
  });

  it('refuses with the gate’s error, reaching no server (hideDenied off: listed, yet refused)', async () => {
    asked.length = 0;
    const refusing = gated(fakeGate([], ['docs:pdf']));
    expect((await skills.list(refusing)).skills).toHaveLength(3);
    await expect(skills.get('skill://docs/pdf/SKILL.md', refusing)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(skills.read('skill://docs/pdf/GUIDE.md', refusing)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(asked.filter((line) => !line.startsWith('list'))).toEqual([]);
  });

  it('gates another handler’s read of a server’s own-form skill URI as that skill', async () => {
    let relayed = 0;
    const relay = async () => ++relayed;
    // Hidden: unknown, not passed on.
    await expect(
      skills.passOn('skill://pdf/GUIDE.md', gated(fakeGate(['docs:pdf'])), undefined, relay),
    ).rejects.toBeInstanceOf(HiddenSkillUri);
    expect(await skills.hidesFile('skill://pdf/GUIDE.md', gated(fakeGate(['docs:pdf'])))).toBe(true);
    expect(await skills.hidesFile('skill://docs/pdf/SKILL.md', gated(fakeGate(['docs:pdf'])))).toBe(true);
    expect(await skills.hidesFile('skill://acme/csv/SKILL.md', gated(fakeGate(['docs:pdf'])))).toBe(false);
    // Refused: the gate's error, not passed on.
    await expect(
      skills.passOn('skill://pdf/GUIDE.md', gated(fakeGate([], ['docs:pdf'])), undefined, relay),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(relayed).toBe(0);
    // Passed: run once through the gate as docs' skill; a URI of no skill at once, ungated.
    const ran: string[] = [];
    expect(await skills.passOn('skill://pdf/GUIDE.md', gated(fakeGate([], [], ran)), undefined, relay)).toBe(
      1,
    );
    expect(await skills.passOn('file:///etc/x', gated(fakeGate([], [], ran)), undefined, relay)).toBe(2);
    expect(ran).toEqual(['docs:pdf (mcp:docs)']);
  });

  it('gates a file no listed skill holds under every directory of its path (fail closed)', async () => {
    const ran: string[] = [];
    await skills.read('skill://docs/secret/deep/x.md', gated(fakeGate([], [], ran)));
    expect(ran).toEqual(['docs:secret (mcp:docs)', 'docs:deep (mcp:docs)']);
    // Any of them hidden hides the file; any refused refuses it.
    await expect(
      skills.read('skill://docs/secret/deep/x.md', gated(fakeGate(['docs:secret']))),
    ).rejects.toBeInstanceOf(HiddenSkillUri);
    await expect(
      skills.read('skill://docs/secret/deep/x.md', gated(fakeGate([], ['docs:deep']))),
    ).rejects.toMatchObject({ code: 'forbidden' });
    // A manifest URI names its skill: the directory that holds it.
    const got: string[] = [];
    await skills.get('skill://docs/unlisted/SKILL.md', gated(fakeGate([], [], got))).catch(() => undefined);
    expect(got).toEqual(['docs:unlisted (mcp:docs)']);
  });
});

describe('GatewaySkills with a gate: configured skills', () => {
  it('sees a configured skill as `skill:skills/get` with its client name, hidden or run', async () => {
    const catalog = {
      size: 1,
      all: () => [compiled],
      visibleIn: () => [compiled],
    } as unknown as SkillCatalog;
    const compiled = {
      name: 'Echo_Twice',
      toolId: 'skill:Echo_Twice',
      description: 'Echo twice',
      input: { type: 'object' },
      steps: [{ id: 'one', tool: 'a:b' }],
    } as unknown as CompiledSkill;
    const skills = new GatewaySkills({ servers: () => [], configured: () => catalog, log: silentLogger });
    const uri = 'skill://skill/echo-twice/SKILL.md';
    const hidden: SkillView = { ...view([], false), gate: fakeGate(['skill:echo-twice']) };
    expect((await skills.list(hidden)).skills).toEqual([]);
    expect(await skills.get(uri, hidden)).toBeUndefined();
    await expect(skills.read(uri, hidden)).rejects.toBeInstanceOf(HiddenSkillUri);
    const ran: string[] = [];
    const open: SkillView = { ...view([], false), gate: fakeGate([], [], ran) };
    expect((await skills.read(uri, open))?.contents[0]?.uri).toBe(uri);
    expect(ran).toEqual(['skill:echo-twice (skill:Echo_Twice)']);
  });
});
