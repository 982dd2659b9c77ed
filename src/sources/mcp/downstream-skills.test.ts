import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillCatalog } from '@modelcontextprotocol/server/ext/skills';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { DownstreamSkills, offersSkills, type SkillsPeer } from './downstream-skills.js';

const FILES = {
  'pdf/SKILL.md': '---\nname: pdf\ndescription: PDFs\n---\n# PDF\n',
  'pdf/GUIDE.md': 'guide',
};

/**
 * A real SDK server with a skill catalog, behind a peer whose shared client can be replaced
 * (`reconnect`) and whose notifications reach the listener; counts the `skills/list` it answers.
 */
async function peer() {
  const state = { lists: 0, client: undefined as unknown as Client };
  let listener: ((method: string, params?: Record<string, unknown>) => void) | undefined;
  const connect = async () => {
    const server = new McpServer({ name: 'docs', version: '1' });
    (await SkillCatalog.load(memorySkillFiles(FILES))).attach(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'gateway', version: '1' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    const send = client.request.bind(client);
    client.request = ((request: { method: string }, ...rest: unknown[]) => {
      if (request.method === 'skills/list') state.lists++;
      return (send as (...args: unknown[]) => unknown)(request, ...rest);
    }) as typeof client.request;
    state.client = client;
  };
  await connect();
  const relay: SkillsPeer = {
    name: 'docs',
    namespace: 'docs',
    sourceId: 'mcp:docs',
    capabilities: () => state.client.getServerCapabilities(),
    withClient: (_channel, use) => use(state.client),
    onNotification: (l) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
  };
  return { relay, state, notify: (method: string) => listener?.(method), reconnect: connect };
}

describe('DownstreamSkills', () => {
  it('lists, gets and reads a server’s skills as the server made them', async () => {
    const { relay } = await peer();
    const skills = new DownstreamSkills(relay, silentLogger);
    expect(skills.offered).toBe(true);
    const { skills: listed } = await skills.list();
    expect(listed.map((s) => s.uri)).toEqual(['skill://pdf/SKILL.md']);
    expect((await skills.get('skill://pdf/SKILL.md')).skill).toEqual(listed[0]);
    expect((await skills.read('skill://pdf/GUIDE.md')).contents[0]).toMatchObject({
      uri: 'skill://pdf/GUIDE.md',
      text: 'guide',
    });
  });

  it('keeps a listing until the server announces a change or its connection is replaced', async () => {
    const { relay, state, notify, reconnect } = await peer();
    const skills = new DownstreamSkills(relay, silentLogger);
    await skills.list();
    await skills.list();
    expect(state.lists).toBe(1);
    notify('notifications/resources/list_changed');
    await skills.list();
    expect(state.lists).toBe(2);
    notify('notifications/tools/list_changed');
    await skills.list();
    expect(state.lists).toBe(2);
    await reconnect();
    await skills.list();
    expect(state.lists).toBe(3);
    skills.close();
  });

  it('lists again once the listing is older than its maximum age', async () => {
    const { relay, state } = await peer();
    const skills = new DownstreamSkills(relay, silentLogger, 0);
    await skills.list();
    await new Promise((resolve) => setTimeout(resolve, 2));
    await skills.list();
    expect(state.lists).toBe(2);
  });

  it('reads the capability only from a declared extension object', () => {
    expect(offersSkills({ extensions: { 'io.modelcontextprotocol/skills': {} } } as never)).toBe(true);
    expect(offersSkills({ extensions: { 'io.modelcontextprotocol/skills': true } } as never)).toBe(false);
    expect(offersSkills({ tools: {} })).toBe(false);
    expect(offersSkills(undefined)).toBe(false);
  });
});
