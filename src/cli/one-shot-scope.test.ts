import { describe, expect, it } from 'vitest';
import { parseConfigValue } from '../config/parse-config.js';
import { namespaceOf, ONE_SHOT_WAIT_MS, oneShotConfig } from './one-shot-scope.js';

describe('oneShotConfig', () => {
  const { config } = parseConfigValue(
    {
      servers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        docs: { url: 'http://127.0.0.1:9/mcp', namespace: 'kb' },
      },
      startup: { waitMs: 12_000 },
    },
    { env: {} },
  );

  it('starts only the servers of the namespace a command names (by namespace, not key)', () => {
    expect(Object.keys(oneShotConfig(config, { namespace: 'memory' }).servers)).toEqual(['memory']);
    expect(Object.keys(oneShotConfig(config, { namespace: 'kb' }).servers)).toEqual(['docs']);
  });

  it('starts none for a built-in or local tool', () => {
    expect(oneShotConfig(config, { namespace: 'time' }).servers).toEqual({});
    expect(oneShotConfig(config, { namespace: 'local' }).servers).toEqual({});
  });

  it('starts every server, waiting less, when no namespace is named; a skill keeps the config as it is', () => {
    const all = oneShotConfig(config);
    expect(Object.keys(all.servers)).toEqual(['memory', 'files', 'docs']);
    expect(all.startup.waitMs).toBe(ONE_SHOT_WAIT_MS);
    expect(oneShotConfig(config, { namespace: 'skill' })).toBe(config);
  });

  it('reads the namespace of an id; a bare name has none', () => {
    expect(namespaceOf('time:now')).toBe('time');
    expect(namespaceOf('a:b:1.0')).toBe('a');
    expect(namespaceOf('ping')).toBeUndefined();
  });
});
