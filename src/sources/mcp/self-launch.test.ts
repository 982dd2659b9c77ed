import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigValue } from '../../config/load-config.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import {
  CONFIG_CHAIN_MARKER,
  enterConfigChain,
  PARENT_MARKER,
  selfLaunchMarkers,
  selfLaunchReason,
} from './self-launch.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('selfLaunchReason', () => {
  it.each([
    ['aperture', ['serve', '--stdio']],
    ['/usr/local/bin/aperture', []],
    ['C:\\Users\\me\\AppData\\Roaming\\npm\\aperture.cmd', ['serve']],
    ['npx', ['-y', 'aperture-gateway', 'serve', '--stdio']],
    ['npx', ['--yes', 'aperture-gateway@0.1.0', 'serve']],
    ['npx', ['aperture', 'serve']],
    ['npx', ['-p', 'aperture-gateway', 'aperture', 'serve']],
    ['npx', ['--package=aperture-gateway', '--', 'aperture']],
    ['npx', ['-c', 'aperture serve --stdio']],
    ['npm', ['exec', '--', 'aperture', 'serve']],
    ['npm', ['exec', '-y', 'aperture-gateway', '--', 'serve']],
    ['pnpm', ['dlx', 'aperture-gateway']],
    ['sh', ['-c', 'aperture serve --stdio']],
    ['bash', ['-lc', 'cd /srv && FOO=1 exec npx -y aperture-gateway serve']],
    ['cmd', ['/c', 'npx', '-y', 'aperture-gateway', 'serve']],
    ['env', ['FOO=1', 'aperture', 'serve']],
    ['node', [path.join(ROOT, 'src/cli/main.ts'), 'serve']],
    ['node', ['/opt/aperture-gateway/dist/cli/main.js', 'serve']],
    ['tsx', [path.join(ROOT, 'src/cli/main.ts'), 'serve', '--stdio']],
  ])('refuses %s %j', (command, args) => {
    expect(selfLaunchReason(command, args)).toBeDefined();
  });

  it.each([
    ['npx', ['-y', '@modelcontextprotocol/server-memory']],
    ['npx', ['-y', 'aperture-tools', 'serve']],
    ['node', [path.join(ROOT, 'test/fixtures/anything.mjs')]],
    ['node', [path.join(ROOT, 'package.json')]],
    ['sh', ['-c', 'echo aperture']],
    ['uvx', ['mcp-server-fetch']],
    ['docker', ['run', '-i', 'aperture']],
  ])('accepts %s %j', (command, args) => {
    expect(selfLaunchReason(command, args)).toBeUndefined();
  });
});

describe('config load', () => {
  it('refuses an entry that starts this gateway, naming the server and why', () => {
    let error: unknown;
    try {
      parseConfigValue(
        {
          mcpServers: {
            memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
            aperture: { command: 'npx', args: ['-y', 'aperture-gateway', 'serve', '--stdio'] },
          },
        },
        { env: {} },
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('config_invalid');
    expect((error as GatewayError).message).toContain('mcpServers.aperture.command');
    expect((error as GatewayError).message).toContain('would start this Aperture gateway itself');
    expect((error as GatewayError).message).toContain('aperture-gateway');
    expect((error as GatewayError).message).not.toContain('memory');
  });
});

describe('the config chain marker', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-chain-'));
    await writeFile(path.join(dir, 'a.yaml'), '{}');
    await writeFile(path.join(dir, 'b.yaml'), '{}');
  });
  afterAll(async () => {
    enterConfigChain(undefined, {});
    await rm(dir, { recursive: true, force: true });
  });

  it('passes the chain down and refuses a gateway whose config is already in it', () => {
    enterConfigChain(path.join(dir, 'a.yaml'), {});
    const markers = selfLaunchMarkers();
    expect(markers[PARENT_MARKER]).toBe(String(process.pid));
    // A different config below: allowed, and added to the chain.
    enterConfigChain(path.join(dir, 'b.yaml'), markers);
    const below = selfLaunchMarkers();
    expect(JSON.parse(below[CONFIG_CHAIN_MARKER] as string)).toHaveLength(2);
    // a.yaml again, two levels down: the loop.
    expect(() => enterConfigChain(path.join(dir, 'a.yaml'), below)).toThrow(/refusing to start/);
    // Without the parent marker the chain is not trusted (a user's shell may have it exported).
    expect(() =>
      enterConfigChain(path.join(dir, 'a.yaml'), { [CONFIG_CHAIN_MARKER]: below[CONFIG_CHAIN_MARKER] }),
    ).not.toThrow();
  });
});
