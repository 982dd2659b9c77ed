import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { describe, expect, it } from 'vitest';
import { compileSkill } from '../../../composition/skills/compile-skill.js';
import type { SkillDefinition } from '../../../composition/skills/skill-definition.js';
import { type ConfiguredSkillEntry, configuredSkillEntry } from './configured-skill-entries.js';

const definition = (patch: Partial<SkillDefinition>): SkillDefinition => ({
  name: 'report',
  description: 'A report',
  steps: [{ id: 'now', tool: 'time:now', args: {} }],
  ...patch,
});

/** Serves `entries` as an SDK server would and reads each manifest back with `SkillsClient` (it verifies). */
async function readBack(entries: ConfiguredSkillEntry[]) {
  const server = new McpServer({ name: 'own', version: '1' });
  new SkillsExtension({
    source: {
      list: async () => ({ skills: entries.map((e) => e.skill) }),
      get: async (uri) => entries.find((e) => e.skill.uri === uri)?.skill,
      read: async (uri) => {
        const found = entries.find((e) => e.skill.uri === uri);
        return found ? { text: found.text, mimeType: 'text/markdown' } : undefined;
      },
    },
  }).attach(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'host', version: '1' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const skills = new SkillsClient(client);
  const { skills: listed, invalid } = await skills.list();
  const files = await Promise.all(listed.map((skill) => skills.read(skill)));
  await client.close();
  return { listed, invalid, files };
}

describe('configured skills as Skills extension entries', () => {
  it('makes a manifest whose frontmatter, size and digest verify, whatever the description holds', async () => {
    const tricky = 'Say "hi": to #everyone — naïve \'quotes\', a \\ backslash,\n  and a second line';
    const entries = [
      configuredSkillEntry(compileSkill(definition({ name: 'Release_Notes', description: tricky }))),
      configuredSkillEntry(compileSkill(definition({ name: 'plain', title: 'Plain one' }))),
    ].filter((entry): entry is ConfiguredSkillEntry => entry !== undefined);
    expect(entries.map((e) => e.skill.uri)).toEqual([
      'skill://skill/release-notes/SKILL.md',
      'skill://skill/plain/SKILL.md',
    ]);
    const { listed, invalid, files } = await readBack(entries);
    expect(invalid).toEqual([]);
    expect(listed).toHaveLength(2);
    expect(files.every((file) => file.verified)).toBe(true);
    expect(files[0]?.frontmatter).toEqual({
      name: 'release-notes',
      description: 'Say "hi": to #everyone — naïve \'quotes\', a \\ backslash, and a second line',
    });
    expect(files[0]?.body).toContain('"name": "Release_Notes"');
    expect(files[1]?.body).toContain('# Plain one');
    expect(entries[0]?.skill._meta).toEqual({ 'io.aperture/toolId': 'skill:Release_Notes' });
  });

  it('leaves out a skill with nothing of its name left for the Agent Skills rule', () => {
    expect(configuredSkillEntry(compileSkill(definition({ name: '___' })))).toBeUndefined();
  });
});
