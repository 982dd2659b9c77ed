import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, FIXTURE_CONFIG, ROOT, startHttpGateway } from './gateway-process.js';

const exec = promisify(execFile);

/** Runs the built CLI; resolves with exit code and both streams, never throws on non-zero. */
async function aperture(args: string[], cwd = ROOT) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'aperture-cli-'));
}

describe('aperture CLI', () => {
  it('runs as the README runs it: `npx aperture` on the built package bin', async () => {
    // npm does not mark a bin executable when the build that creates it runs after linking
    // (`npm install` in a fresh clone): the build script must.
    const { stdout } = await exec('npx', ['--no-install', 'aperture', '--version'], { cwd: ROOT });
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout.trim()).toBe(version);
  });

  it('search finds a tool for a task, as text and as JSON', async () => {
    const text = await aperture(['search', 'encode a diagram', '--limit', '2']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toContain('plantuml:encode');
    const json = await aperture(['search', 'time zone', '--json']);
    expect(JSON.parse(json.stdout).tools[0].id).toMatch(/^time:/);
  });

  it('describe prints a summary or the schema', async () => {
    const summary = await aperture(['describe', 'plantuml:encode', '--detail', 'summary']);
    expect(summary.stdout).toContain('plantuml:encode');
    const schema = JSON.parse((await aperture(['describe', 'plantuml:encode'])).stdout);
    expect(schema.tool.inputSchema.required).toContain('source');
  });

  it('run prints the structured result; errors are one line with the code and a non-zero exit', async () => {
    const ok = await aperture(['run', 'plantuml:encode', '--args', '{"source":"Bob -> Alice : hello"}']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).encoded).toBe('SyfFKj2rKt3CoKnELR1Io4ZDoSa70000');

    const badJson = await aperture(['run', 'plantuml:encode', '--args', '{nope']);
    expect(badJson.code).not.toBe(0);
    expect(badJson.stderr.trim().split('\n')).toHaveLength(1);
    expect(badJson.stderr).toContain('invalid_request');

    const unknown = await aperture(['run', 'nope:tool']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.trim()).toMatch(/^aperture: tool_not_found: /);

    const invalid = await aperture(['run', 'time:now', '--args', '{"timezone":"Mars/Olympus"}']);
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('validation_input');
    expect(invalid.stderr).toContain('Mars/Olympus');
  });

  it('list shows the catalog, filtered by namespace; a config adds module tools', async () => {
    const all = JSON.parse((await aperture(['list', '--json'])).stdout).tools.map(
      (t: { id: string }) => t.id,
    );
    expect(all).toEqual(
      expect.arrayContaining(['plantuml:encode', 'plantuml:decode', 'time:now', 'json:query', 'text:stats']),
    );
    const ns = JSON.parse((await aperture(['list', '--namespace', 'time', '--json'])).stdout).tools;
    expect(ns.every((t: { namespace: string }) => t.namespace === 'time')).toBe(true);
    const withModules = await aperture(['--config', FIXTURE_CONFIG, 'list']);
    expect(withModules.stdout).toContain('fixture:add');
  });

  it('config validate accepts a good file and names the bad key of a wrong one', async () => {
    const dir = await tempDir();
    const good = path.join(dir, 'good.yaml');
    await writeFile(good, 'server: { port: 9000 }\nexposure: metatools\n');
    const ok = await aperture(['config', 'validate', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('valid');

    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'server: { port: 9000 }\ntools: { modlues: [] }\n');
    const failed = await aperture(['config', 'validate', bad]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect(failed.stderr).toContain('tools.modlues');

    const redis = path.join(dir, 'redis.yaml');
    await writeFile(redis, 'state:\n  driver: redis\n');
    const refused = await aperture(['config', 'validate', redis]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('state.redis: is required with driver: redis');

    const weak = path.join(dir, 'weak.yaml');
    await writeFile(weak, 'auth:\n  apiKeys: [{ name: a, key: b }]\n');
    const weakKey = await aperture(['config', 'validate', weak]);
    expect(weakKey.code).toBe(2);
    expect(weakKey.stderr).toContain('auth.apiKeys[0].key: must be at least 16 characters');

    const missing = await aperture(['config', 'validate', path.join(dir, 'nope.yaml')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('not found');
  });

  it('reads ./aperture.yaml from the working directory when no --config is given', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'aperture.yaml'), 'tools: { builtin: false }\n');
    const listed = await aperture(['list', '--json'], dir);
    expect(JSON.parse(listed.stdout).tools).toEqual([]);
  });

  it('serve refuses a broken config with a non-zero exit naming the key', async () => {
    const dir = await tempDir();
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'exposure: sideways\n');
    const result = await aperture(['serve', '--config', bad, '--port', '0']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('exposure');
    const badModule = path.join(dir, 'bad-module.yaml');
    await writeFile(path.join(dir, 'broken.ts'), 'export const x = ;\n');
    await writeFile(badModule, 'tools: { modules: ["./broken.ts"] }\n');
    const broken = await aperture(['serve', '--config', badModule, '--port', '0']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('broken.ts');
  });

  it('rejects bad flags with a usage error', async () => {
    const result = await aperture(['search', 'x', '--limit', 'many']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--limit must be an integer');
    expect(result.stderr).not.toMatch(/\bat \S+ \(/); // no stack trace
    const help = await aperture(['--help']);
    for (const command of ['serve', 'search', 'describe', 'run', 'list', 'config', 'doctor'])
      expect(help.stdout).toContain(command);
  });

  it('serve stops cleanly on SIGTERM', async () => {
    const gateway = await startHttpGateway([]);
    const exited = new Promise<number | null>((resolve) =>
      gateway.child.once('exit', (code) => resolve(code)),
    );
    gateway.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
