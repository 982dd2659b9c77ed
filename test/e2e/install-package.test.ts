import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './gateway-process.js';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const MEMORY_SERVER = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** Safety bound for packing and installing (native modules may be compiled). */
const INSTALL_BOUND_MS = 600_000;

let work: string;
let prefix: string;
let tarballFiles: string[];
let bin: string;
let installed: string;

/** The files of `src` that become modules of `dist` (tests and test contracts are not shipped). */
async function shippedSources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    if (entry.name.endsWith('.test.ts') || entry.name.endsWith('.contract.ts')) continue;
    out.push(path.relative(path.join(ROOT, 'src'), path.join(entry.parentPath, entry.name)));
  }
  return out;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'aperture-install-'));
  prefix = path.join(work, 'prefix');
  // dist/ is built before the e2e tests run (npm run build); packing does not rebuild it here.
  const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    timeout: INSTALL_BOUND_MS,
  });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (!packed) throw new Error(`npm pack said nothing: ${stdout}`);
  tarballFiles = packed.files.map((file) => file.path);
  // What a user does: install the tarball globally. Dependencies come from npm's cache.
  await exec(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      path.join(work, packed.filename),
    ],
    { cwd: work, timeout: INSTALL_BOUND_MS },
  );
  bin = path.join(prefix, 'bin', 'aperture');
  installed = path.join(prefix, 'lib', 'node_modules', 'aperture-gateway');
}, INSTALL_BOUND_MS * 2);

describe('the packed package, installed with npm install -g', { timeout: 60_000 }, () => {
  it('ships every module of dist/ and nothing of the sources or tests', async () => {
    const expected = (await shippedSources(path.join(ROOT, 'src'))).map((file) =>
      path.join('dist', file.replace(/\.ts$/, '.js')),
    );
    expect(expected.length).toBeGreaterThan(100);
    expect(tarballFiles.filter((file) => expected.includes(file)).sort()).toEqual(expected.sort());
    expect(tarballFiles.filter((file) => /(^|\/)(src|test)\/|\.test\.js$/.test(file))).toEqual([]);
    expect(tarballFiles).toContain('package.json');
    expect(tarballFiles).toContain('README.md');
  });

  it('installs every package its code imports (runtime dependencies are all in `dependencies`)', async () => {
    const imported = new Set<string>();
    const dist = path.join(installed, 'dist');
    for (const entry of await readdir(dist, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
      // Comments left out: the bundled CLI keeps its dependencies' JSDoc, whose examples import
      // packages that are never loaded.
      const code = (await readFile(path.join(entry.parentPath, entry.name), 'utf8'))
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      // Static and dynamic imports and require()s of bare specifiers (not Node's own modules, with
      // or without `node:`, which bundled CommonJS code requires by their bare names; not relative).
      for (const match of code.matchAll(
        /(?:from|import\(|require(?:\.resolve)?\()\s*['"]([@a-zA-Z][\w@./:-]*)['"]/g,
      )) {
        const specifier = match[1] as string;
        if (specifier.startsWith('node:') || isBuiltin(specifier)) continue;
        const parts = specifier.split('/');
        imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
      }
    }
    expect(imported.size).toBeGreaterThan(10);
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')) as {
      name: string;
      optionalDependencies?: Record<string, string>;
    };
    const optional = new Set(Object.keys(manifest.optionalDependencies ?? {}));
    const missing = [...imported].filter(
      (name) =>
        // The package's own name: user tool modules import it, and it resolves to the package itself.
        name !== manifest.name &&
        !optional.has(name) &&
        !existsSync(path.join(installed, 'node_modules', name, 'package.json')),
    );
    expect(missing).toEqual([]);
  });

  it('puts `aperture` on the PATH of the prefix, runnable from /', async () => {
    const { stdout } = await exec(bin, ['--version'], { cwd: '/' });
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout.trim()).toBe(version);
  });

  it('does not need a build where it is installed: its prepare script is harmless there', async () => {
    // npm may run `prepare` of a package installed from a tarball (it lists it among the install
    // scripts); there is no TypeScript and no source there, so it must do nothing and succeed.
    const { stdout, stderr } = await exec('npm', ['run', 'prepare', '--ignore-scripts=false'], {
      cwd: installed,
      timeout: 60_000,
    }).catch((error: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`prepare failed (${error.code}):\n${error.stdout}\n${error.stderr}`);
    });
    expect(`${stdout}${stderr}`).not.toMatch(/tsc -p/);
    expect((await readdir(path.join(installed, 'dist', 'cli'))).includes('main.js')).toBe(true);
  });

  it('serves a config with a downstream server over stdio from /; the first tools/list has its tools', async () => {
    const config = path.join(work, 'gateway.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [MEMORY_SERVER],
            env: { MEMORY_FILE_PATH: path.join(work, 'memory.jsonl') },
          },
        },
        exposure: 'flat',
      }),
    );
    const transport = new StdioClientTransport({
      command: bin,
      args: ['serve', '--stdio'],
      cwd: '/',
      env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`, APERTURE_CONFIG: config },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'install-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names, stderr).toContain('memory__create_entities');
      const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(graph.isError ?? false).toBe(false);
    } finally {
      await client.close().catch(() => {});
    }
  });

  it('keeps the state an install wrote under the Node it was installed with, under another Node major', async () => {
    // Under `npm test` this file runs twice: with the Node on PATH (the one npm installed with)
    // and with the Node 22 of the `node` dev dependency (scripts/test-node22.mjs), where the
    // better-sqlite3 built for the first does not load and node:sqlite reads the same file.
    const config = path.join(work, 'state-gateway.json');
    const stateDir = path.join(work, `state-${process.versions.node}`);
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [MEMORY_SERVER],
            env: { MEMORY_FILE_PATH: path.join(work, 'memory-state.jsonl') },
          },
        },
      }),
    );
    const env = { ...process.env, APERTURE_STATE_DIR: stateDir };
    const main = path.join(installed, 'dist', 'cli', 'main.js');
    // Written by the Node on PATH, the one the package was installed with.
    await exec('node', [main, 'list', '--config', config], { cwd: work, env, timeout: 60_000 });
    const { stdout, stderr } = await exec(
      process.execPath,
      [main, 'trust', 'list', '--all', '--json', '--config', config],
      {
        cwd: work,
        env,
        timeout: 60_000,
      },
    );
    const ids = (JSON.parse(stdout) as { tools: { id: string }[] }).tools.map((tool) => tool.id);
    expect(ids, stderr).toContain('memory:create_entities');
    expect(stderr).not.toContain('keeping state in memory');
  });
});
