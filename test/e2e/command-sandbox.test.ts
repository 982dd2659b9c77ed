import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandboxEngine } from '../../src/foundation/sandbox/sandbox-engine.js';
import { waitFor } from '../support/fixture-servers.js';
import { CLI, connectHttp, stopProcess, structured } from './gateway-process.js';

/*
 * `commands:` tools run in the same OS sandbox as stdio servers (docs/SANDBOX.md): a program
 * declared in the config, run by `aperture serve` through the SDK client, with the gateway's HOME
 * in a temporary folder holding a fake credential and a secret in the gateway's environment.
 * The same program with `sandbox: off` is the positive control: it does read and write.
 */

const engine = detectSandboxEngine();
const TOOLS = ['/bin/cat', '/usr/bin/env', '/usr/bin/touch'];
const missing = TOOLS.filter((tool) => !existsSync(tool));
const SKIP = !engine.available
  ? ` (skipped: ${engine.reason})`
  : missing.length > 0
    ? ` (skipped: ${missing.join(', ')} missing)`
    : '';

describe.skipIf(SKIP !== '')(`command tools in the sandbox${SKIP}`, () => {
  const GATEWAY_SECRET = 'gateway-only-secret-5d1e7a';
  let dir: string;
  let home: string;
  let granted: string;
  let gateway: ChildProcess;
  let url: string;
  let stderr = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-command-sandbox-'));
    home = path.join(dir, 'home');
    granted = path.join(dir, 'granted');
    await mkdir(path.join(home, '.ssh'), { recursive: true });
    await mkdir(granted);
    await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'FAKE-SSH-PRIVATE-KEY');
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'tools: { builtin: false }',
        'state: { driver: memory }',
        'observability: { logLevel: warn }',
        'commands:',
        '  read_path: { command: /bin/cat, args: ["{path}"] }',
        '  read_path_open: { command: /bin/cat, args: ["{path}"], sandbox: off }',
        '  show_env: { command: /usr/bin/env, env: { OWN_VARIABLE: own-value } }',
        `  touch_path: { command: /usr/bin/touch, args: ["{path}"], sandbox: { filesystem: { write: ["${granted}"] } } }`,
        '  touch_path_open: { command: /usr/bin/touch, args: ["{path}"], sandbox: off }',
        '',
      ].join('\n'),
    );
    gateway = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--config', 'aperture.yaml'], {
      cwd: dir,
      env: { ...process.env, HOME: home, GATEWAY_SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    gateway.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const listening = () => /listening on (http:\/\/\S+)\/mcp/.exec(stderr)?.[1];
    await waitFor('the gateway to listen', () => listening() !== undefined, 20_000);
    url = listening() as string;
  });

  afterAll(async () => {
    if (gateway) await stopProcess(gateway);
  });

  async function run(tool: string, args: Record<string, unknown> = {}) {
    await using client = await connectHttp(url);
    const result = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: `commands:${tool}`, args },
    });
    // A failure's error is structured; a program's text output is the content.
    return result.isError ? structured(result) : { output: JSON.stringify(result.content) };
  }

  it('cannot read a credential file that the same program reads unconfined', async () => {
    const key = path.join(home, '.ssh', 'id_ed25519');
    expect(JSON.stringify(await run('read_path_open', { path: key }))).toContain('FAKE-SSH-PRIVATE-KEY');
    expect(JSON.stringify(await run('read_path', { path: key }))).not.toContain('FAKE-SSH-PRIVATE-KEY');
  });

  it("sees its own variables and none of the gateway's", async () => {
    const env = JSON.stringify(await run('show_env'));
    expect(env).toContain('OWN_VARIABLE=own-value');
    expect(env).not.toContain(GATEWAY_SECRET);
    expect(env).not.toContain('GATEWAY_SECRET');
  });

  it('writes only where it is granted', async () => {
    const inside = path.join(granted, 'made-inside');
    const outside = path.join(dir, 'made-outside');
    expect(await run('touch_path', { path: inside })).not.toHaveProperty('error');
    expect(existsSync(inside)).toBe(true);
    const refused = await run('touch_path', { path: outside });
    expect(refused.error.code).toBe('execution_failed');
    expect(refused.error.message).toMatch(/Read-only file system/i);
    expect(existsSync(outside)).toBe(false);
    // The control: unconfined, the same write succeeds.
    expect(await run('touch_path_open', { path: outside })).not.toHaveProperty('error');
    expect(existsSync(outside)).toBe(true);
  });
});
