import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import { connectHttp, startHttpGateway } from './gateway-process.js';

/*
 * A Cline-style config file, with a key Claude Desktop users write ("My Memory") and Cursor's
 * envFile, served as it is: the gateway honours `disabled`, loads the envFile into the stdio
 * server's environment, and names the normalised namespace and the ignored keys in its log.
 */

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-pasted-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a pasted Cline / Cursor mcpServers block in the running gateway', () => {
  it('starts what is enabled under a normalised namespace, with the envFile loaded, and logs what it changed', async () => {
    const memoryFile = path.join(dir, 'memory.jsonl');
    await writeFile(path.join(dir, 'memory.env'), `MEMORY_FILE_PATH=${memoryFile}\n`);
    await writeFile(
      path.join(dir, 'cline_mcp_settings.json'),
      JSON.stringify({
        mcpServers: {
          'My Memory': {
            command: process.execPath,
            args: [referenceServerBin('server-memory')],
            envFile: './memory.env',
            timeout: 30,
            autoApprove: ['read_graph'],
            disabled: false,
          },
          off: { command: path.join(dir, 'no-such-command'), args: [], disabled: true },
        },
      }),
    );
    await using gateway = await startHttpGateway(['--config', 'cline_mcp_settings.json'], dir);
    const ready = await (async () => {
      for (let i = 0; i < 200; i++) {
        const res = await fetch(`${gateway.url}/readyz`);
        if (res.status === 200) return (await res.json()) as { sources: { name: string; state: string }[] };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`not ready: ${gateway.stderr()}`);
    })();
    // The disabled server is not started (a missing command would fail), so it is not a source.
    expect(JSON.stringify(ready)).not.toContain('no-such-command');
    expect(ready.sources.map((source) => source.name)).not.toContain('off');

    await using client = await connectHttp(gateway.url);
    const ran = await client.callTool({
      name: 'run_tool',
      arguments: {
        tool_id: 'My-Memory:create_entities',
        args: { entities: [{ name: 'Lisbon', entityType: 'city', observations: ['on the Tagus'] }] },
      },
    });
    expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
    // The memory server wrote where the envFile told it to.
    expect(await readFile(memoryFile, 'utf8')).toContain('on the Tagus');

    const log = gateway.stderr();
    expect(log).toContain(
      'mcpServers[\\"My Memory\\"]: the key is not a valid namespace; its tools use namespace \\"My-Memory\\"',
    );
    expect(log).toContain('\\"autoApprove\\" is ignored (mcpServers[\\"My Memory\\"])');
  });
});
