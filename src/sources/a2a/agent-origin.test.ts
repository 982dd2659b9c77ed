import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { loadA2aAgentSource } from './a2a-agent-source.js';

/**
 * An A2A agent's card names the URL the gateway then talks to. A card pointing at another origin
 * must not receive the credentials configured for the agent, and agent URLs pass the same network
 * guard as OpenAPI services.
 */
interface Recorded {
  url: string;
  authorization: string | undefined;
}

let home: http.Server;
let elsewhere: http.Server;
let homeOrigin: string;
let elsewhereOrigin: string;
const atHome: Recorded[] = [];
const atElsewhere: Recorded[] = [];
let cardUrl = '';

function card(url: string) {
  return {
    name: 'Agent',
    description: 'test agent',
    url,
    version: '1.0.0',
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'ask', name: 'ask', description: 'ask', tags: [] }],
  };
}

function recorder(into: Recorded[], answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  return http.createServer((req, res) => {
    into.push({ url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => answer(req, res));
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  elsewhere = recorder(atElsewhere, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } }));
  });
  elsewhereOrigin = await listen(elsewhere);
  home = recorder(atHome, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(card(cardUrl)));
  });
  homeOrigin = await listen(home);
});
afterAll(async () => {
  await new Promise((resolve) => home.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});
beforeEach(() => {
  atHome.length = 0;
  atElsewhere.length = 0;
});

const headers = { Authorization: 'Bearer agent-token-1' };

async function loadAndCall(options: { allowPrivateNetwork?: boolean }): Promise<unknown> {
  const entries = await loadA2aAgentSource(
    'peer',
    { url: homeOrigin, headers, timeoutMs: 2000, ...options },
    { log: silentLogger },
  );
  const [first] = entries;
  if (!first) throw new Error('no tool');
  return await first.backend
    .execute(
      first.tool,
      { message: 'hi' },
      {
        signal: AbortSignal.timeout(3000),
        callId: 'c',
        caller: { identity: 't' },
        progress: () => {},
        log: silentLogger,
      },
    )
    .catch((error: unknown) => error);
}

describe('A2A agent origin', () => {
  it('refuses a card whose URL names another origin, and sends it nothing', async () => {
    cardUrl = `${elsewhereOrigin}/a2a`;
    await expect(loadAndCall({ allowPrivateNetwork: true })).rejects.toMatchObject({ code: 'forbidden' });
    expect(atElsewhere).toEqual([]);
    // The card itself was fetched with the credentials: that is the configured origin.
    expect(atHome[0]?.authorization).toBe('Bearer agent-token-1');
  });

  it('refuses an agent on a private address unless allowPrivateNetwork is set', async () => {
    cardUrl = `${homeOrigin}/a2a`;
    await expect(loadAndCall({})).rejects.toMatchObject({ code: 'forbidden' });
    expect(atHome).toEqual([]);
  });
});
