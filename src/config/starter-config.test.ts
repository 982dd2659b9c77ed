import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';
import { starterConfig } from './starter-config.js';

/** A commented line that is YAML (`# key: …`; config keys start lowercase, prose does not): its indentation, and where its text starts. */
const COMMENTED_KEY = /^(\s*)# ( *)[a-z_][\w-]*:(\s|$)/;

/**
 * The commented blocks of a file: a line `# key: …` and the commented lines after it indented
 * deeper after the `#` (its children), as the lines' numbers.
 */
function commentedBlocks(lines: readonly string[]): number[][] {
  const blocks: number[][] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = COMMENTED_KEY.exec(lines[i] ?? '');
    if (!head) continue;
    const [, indent = '', inner = ''] = head;
    const block = [i];
    for (let j = i + 1; j < lines.length; j++) {
      const child = new RegExp(`^${indent}# ${inner} +\\S`).exec(lines[j] ?? '');
      if (!child) break;
      block.push(j);
    }
    blocks.push(block);
    i = block.at(-1) ?? i;
  }
  return blocks;
}

describe('starterConfig', () => {
  it("leaves out a client's own aperture entry, saying why, and imports the rest", () => {
    const starter = starterConfig({
      servers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        aperture: { command: 'npx', args: ['-y', 'aperture-gateway', 'serve', '--stdio'] },
      },
    });
    expect(starter.imported).toEqual(['memory']);
    expect(starter.skipped).toHaveLength(1);
    expect(starter.skipped[0]?.key).toBe('aperture');
    expect(starter.skipped[0]?.reason).toContain('would start this Aperture gateway itself');
    const parsed = parseConfigText(starter.text, 'yaml', { env: {} });
    expect(Object.keys(parsed.config.servers)).toEqual(['memory']);
  });

  const { text } = starterConfig();
  const lines = text.split('\n');
  const blocks = commentedBlocks(lines);

  it('has commented examples to uncomment', () => {
    expect(blocks.map((block) => lines[block[0] ?? 0]?.trim().split(':')[0])).toEqual([
      '# modules',
      '# servers',
      '# search',
      '# observability',
    ]);
  });

  it.each(blocks.map((block) => [lines[block[0] ?? 0]?.trim() ?? '', block] as const))(
    'stays a valid config with %s uncommented',
    (_name, block) => {
      const uncommented = lines.map((line, i) => (block.includes(i) ? line.replace(/^(\s*)# /, '$1') : line));
      expect(() =>
        parseConfigText(uncommented.join('\n'), 'yaml', { env: {}, source: 'aperture.yaml' }),
      ).not.toThrow();
    },
  );
});
