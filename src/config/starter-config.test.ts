import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';
import { starterConfig } from './starter-config.js';

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
});
