import { describe, expect, it } from 'vitest';
import { skillRoot, skillSlug, skillUriToClient, splitSkillUri } from './skill-uris.js';

describe('skill URIs as the gateway names them', () => {
  it('puts the namespace first and keeps the skill directory, hence its name', () => {
    expect(skillUriToClient('docs', 'skill://pdf/SKILL.md', true)).toBe('skill://docs/pdf/SKILL.md');
    expect(skillUriToClient('docs', 'skill://acme/pdf/references/GUIDE.md', true)).toBe(
      'skill://docs/acme/pdf/references/GUIDE.md',
    );
  });

  it('leaves the URI as it is without prefix, or in another scheme', () => {
    expect(skillUriToClient('docs', 'skill://pdf/SKILL.md', false)).toBe('skill://pdf/SKILL.md');
    expect(skillUriToClient('docs', 'repo://pdf/SKILL.md', true)).toBe('repo://pdf/SKILL.md');
  });

  it('splits a gateway URI back into the namespace and the server’s own URI', () => {
    for (const original of ['skill://pdf/SKILL.md', 'skill://acme/pdf/references/a%20b.md']) {
      expect(splitSkillUri(skillUriToClient('docs', original, true))).toEqual({
        namespace: 'docs',
        original,
      });
    }
    expect(splitSkillUri('skill://docs')).toBeUndefined();
    expect(splitSkillUri('skill://docs/')).toBeUndefined();
    expect(splitSkillUri('skill:///pdf/SKILL.md')).toBeUndefined();
    expect(splitSkillUri('file:///pdf/SKILL.md')).toBeUndefined();
  });

  it('finds a skill’s root directory', () => {
    expect(skillRoot('skill://docs/pdf/SKILL.md')).toBe('skill://docs/pdf');
    expect(skillRoot('skill://docs/pdf/GUIDE.md')).toBeUndefined();
  });

  it('makes a configured skill’s name follow the Agent Skills rule', () => {
    expect(skillSlug('Release_Notes')).toBe('release-notes');
    expect(skillSlug('--a  b--')).toBe('a-b');
    expect(skillSlug('___')).toBe('');
    expect(skillSlug(`${'a'.repeat(63)}_b`)).toBe('a'.repeat(63));
  });
});
