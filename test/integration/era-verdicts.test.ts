import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DiscoverResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/foundation/ports/logger.js';
import { EraVerdicts, eraVerdicts } from '../../src/sources/mcp/era-verdicts.js';
import { type Connection, openConnection } from '../../src/sources/mcp/open-connection.js';
import { fixtureServerPath } from '../support/fixture-servers.js';
import { startListeningFixture } from '../support/listening-fixture.js';

/**
 * Era negotiation is done once per server and credentials: a second connection to the same
 * 2026-07-28 server (a reconnect, a session's own link) adopts the first one's `server/discover`
 * result; a server that stops answering as remembered is probed again.
 */

let fixture: ChildProcess;
let proxy: Server;
let proxyUrl: string;
let discovers = 0;

beforeAll(async () => {
  const started = await startListeningFixture(fixtureServerPath('modern-http-server.mjs'));
  fixture = started.child;
  const target = new URL(started.url);
  // A proxy in front of it that counts the probes.
  proxy = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (body.toString().includes('"server/discover"')) discovers++;
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'content-length'),
    ) as Record<string, string>;
    const answer = await fetch(new URL(request.url ?? '/', target), {
      method: request.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${target.pathname}`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  fixture.kill();
});

const connect = (headers: Record<string, string> = {}): Promise<Connection> =>
  openConnection(
    { kind: 'remote', url: proxyUrl, transport: 'streamable-http', headers },
    { clientInfo: { name: 'test', version: '1' }, capabilities: {}, log: silentLogger, timeoutMs: 10_000 },
  );

describe('era verdicts of downstream servers', () => {
  it('probes a 2026-07-28 server once, then adopts the verdict for the next connections', async () => {
    const first = await connect();
    expect(first.protocolVersion).toBe('2026-07-28');
    expect(discovers).toBe(1);
    await first.close();
    const second = await connect();
    expect(second.protocolVersion).toBe('2026-07-28');
    const tools = await second.client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('shout');
    await second.close();
    expect(discovers).toBe(1);
    // Other credentials are another authorization context: probed on their own.
    const other = await connect({ 'x-api-key': 'another-key-123' });
    await other.close();
    expect(discovers).toBe(2);
  });

  it('probes again when a remembered verdict no longer holds', async () => {
    const key = EraVerdicts.key(proxyUrl, {}, false);
    // As if the server had spoken only a revision it no longer offers.
    const stale = { supportedVersions: ['2099-01-01'] } as unknown as DiscoverResult;
    eraVerdicts.remember(key, { getDiscoverResult: () => stale });
    const before = discovers;
    const connection = await connect();
    expect(connection.protocolVersion).toBe('2026-07-28');
    await connection.close();
    expect(discovers).toBe(before + 1);
    expect(eraVerdicts.get(key)).toMatchObject({ kind: 'modern' });
  });
});
