import { describe, expect, it } from 'vitest';
import { runSourceContract } from '../../src/catalog/source.contract.js';
import { silentLogger } from '../../src/foundation/ports/logger.js';
import { McpServerSource } from '../../src/sources/mcp/mcp-server-source.js';
import { fixtureServerPath } from '../support/fixture-servers.js';

/** The faulty fixture server (its tools are fixed unless a test adds some), over stdio. */
function source(name = 'f'): McpServerSource {
  return new McpServerSource({
    name,
    namespace: name,
    target: {
      kind: 'stdio',
      command: process.execPath,
      args: [fixtureServerPath('faulty-server.mjs')],
      env: {},
    },
    relistIntervalMs: 0,
    clientInfo: { name: 'test', version: '1' },
    log: silentLogger,
    backoff: { minMs: 50, maxMs: 200 },
  });
}

/** The tool ids the fixture serves, read once from a started source. */
async function fixtureIds(): Promise<string[]> {
  const probe = source();
  let ids: string[] = [];
  await probe.start((entries) => {
    ids = entries.map((entry) => entry.tool.id);
    return [];
  });
  await probe.stop();
  return ids;
}

runSourceContract('McpServerSource (stdio fixture server)', async () => ({
  source: source(),
  ids: await fixtureIds(),
}));

describe('McpServerSource', () => {
  it('reports a server that cannot start as failed, with the reason, once the first try ended', async () => {
    const broken = new McpServerSource({
      name: 'gone',
      namespace: 'gone',
      target: { kind: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'], env: {} },
      relistIntervalMs: 0,
      clientInfo: { name: 'test', version: '1' },
      log: silentLogger,
      backoff: { minMs: 60_000, maxMs: 60_000 },
    });
    await broken.start(() => []);
    const state = broken.state();
    expect(state.state).toBe('failed');
    expect(state.tools).toBe(0);
    expect(state.lastError?.code).toBeTypeOf('string');
    await broken.stop();
    expect(broken.state().state).toBe('failed');
  });
});
