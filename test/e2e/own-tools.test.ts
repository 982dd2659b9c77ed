import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from './gateway-process.js';

const exec = promisify(execFile);

/** Runs the built CLI in `cwd`; resolves with exit code and both streams. */
async function aperture(args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The README's "Your own tools" module, word for word. */
const README_MODULE = `// tools/weather.ts
import { defineTool } from 'aperture-gateway';
import { z } from 'zod';

export const forecast = defineTool({
  namespace: 'weather',
  name: 'forecast',
  description: 'Forecast for a city, today and the next days.',
  inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).default(3) }),
  annotations: { readOnlyHint: true },
  examples: [{ title: 'Paris, 3 days', args: { city: 'Paris', days: 3 } }],
  handler: async ({ city, days }, ctx) => {
    ctx.progress({ progress: 1, total: 2 });
    return { city, days, summary: 'sunny' }; // an object → structuredContent (+ JSON text)
  },
});

export const ping = { name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object' }, handler: () => 'pong' };
`;

/**
 * A user following "Your own tools" in a directory of their own, outside the clone and with no
 * node_modules: the module imports `aperture-gateway` and `zod`, zod and JSON Schema defaults
 * reach the handler, and `config validate` refuses exactly what `serve` refuses.
 */
describe('your own tools, in a directory outside the package', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-own-tools-'));
    await mkdir(path.join(dir, 'tools'));
    await writeFile(path.join(dir, 'tools/weather.ts'), README_MODULE);
    await writeFile(
      path.join(dir, 'tools/plain.mjs'),
      `import { defineTool } from 'aperture-gateway';
      export const greet = defineTool({
        name: 'greet', namespace: 'plain', description: 'Greets.',
        inputSchema: { type: 'object', properties: { who: { type: 'string', default: 'world' },
          opts: { type: 'object', properties: { loud: { type: 'boolean', default: false } }, default: {} } } },
        handler: (args) => ({ args }),
      });\n`,
    );
    await writeFile(path.join(dir, 'aperture.yaml'), 'tools: { builtin: false, modules: ["./tools/*"] }\n');
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads the README module, and the zod default reaches the handler', async () => {
    const valid = await aperture(['config', 'validate'], dir);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    const run = await aperture(['run', 'weather:forecast', '--args', '{"city":"Paris"}'], dir);
    // The README's handler reports progress, which `aperture run` may show on stderr; nothing else.
    for (const line of run.stderr.split('\n').filter(Boolean)) {
      expect(line).toMatch(/^aperture: weather:forecast progress 1\/2\b/);
    }
    expect(JSON.parse(run.stdout)).toEqual({ city: 'Paris', days: 3, summary: 'sunny' });
    const given = await aperture(['run', 'weather:forecast', '--args', '{"city":"Oslo","days":5}'], dir);
    expect(JSON.parse(given.stdout)).toEqual({ city: 'Oslo', days: 5, summary: 'sunny' });
  });

  it('fills JSON Schema defaults too, nested ones included', async () => {
    const run = await aperture(['run', 'plain:greet'], dir);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ args: { who: 'world', opts: { loud: false } } });
  });

  it('config validate refuses a module glob that matches nothing, as serve does: exit 2, one line', async () => {
    const config = path.join(dir, 'nothing.yaml');
    await writeFile(config, 'tools: { modules: ["./missing/*.ts"] }\n');
    const result = await aperture(['config', 'validate', config], dir);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('valid');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('config_invalid');
    expect(result.stderr).toContain('./missing/*.ts');
  });

  it('config validate refuses a module that fails to load, naming it: exit 2, one line', async () => {
    await writeFile(path.join(dir, 'broken.ts'), 'export const x = ;\n');
    const config = path.join(dir, 'broken.yaml');
    await writeFile(config, 'tools: { modules: ["./broken.ts"] }\n');
    const result = await aperture(['config', 'validate', config], dir);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^aperture: config_invalid: Tool module .*broken\.ts failed to load/);
  });
});
