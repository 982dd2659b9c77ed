import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * Config is parsed once or twice per process (`DEFAULT_CONFIG` as the module loads, then the
 * user's file), so its parses skip zod's generated fast parsers, whose code generation and
 * compilation cost a stdio client's first `tools/list` ~10 ms (docs/PERFORMANCE.md).
 */
afterEach(() => vi.restoreAllMocks());

/** The bodies of the functions zod generated (`new Function(…)`) while `run` ran. */
async function generatedDuring(run: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(globalThis, 'Function');
  await run();
  return spy.mock.calls.map((args) => String(args.at(-1))).filter((body) => body.includes('payload'));
}

describe('config parsing', () => {
  it('builds DEFAULT_CONFIG and parses a config without generating fast parsers', async () => {
    vi.resetModules();
    const generated = await generatedDuring(async () => {
      const { DEFAULT_CONFIG } = await import('./config-schema.js');
      const { parseConfigValue } = await import('./load-config.js');
      expect(DEFAULT_CONFIG.exposure).toBeDefined();
      const parsed = parseConfigValue({ servers: { echo: { command: 'node', args: ['server.js'] } } });
      expect(parsed.config.servers.echo).toMatchObject({ command: 'node' });
    });
    expect(generated).toEqual([]);
  });

  it('still reports invalid values as before', async () => {
    const { parseConfigValue } = await import('./load-config.js');
    expect(() => parseConfigValue({ servers: { echo: { command: 42 } } })).toThrow(/servers\.echo/);
  });
});
