import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EgressDecision, type EgressProxy, startEgressProxy } from './egress-proxy.js';
import { parseHostPatterns } from './host-pattern.js';

/** A GET in proxy form through the unix socket: status and body. */
function viaProxy(
  socketPath: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: url, method: body === undefined ? 'GET' : 'POST', headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A CONNECT through the socket: the status line the proxy answers. */
function connectVia(socketPath: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () =>
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
    );
    socket.once('data', (chunk) => {
      resolve(chunk.toString().split('\r\n')[0] ?? '');
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

describe('the egress proxy', () => {
  let dir: string;
  let proxy: EgressProxy;
  let upstream: Server;
  let port: number;
  let socketPath: string;
  const decisions: EgressDecision[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'egress-proxy-'));
    socketPath = path.join(dir, 'proxy.sock');
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => res.end(`${req.url} auth=${req.headers.authorization ?? '-'} body=${body}`));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as AddressInfo).port;
    proxy = await startEgressProxy({
      socketPath,
      allow: parseHostPatterns([`127.0.0.1:${port}`]),
      secrets: [
        {
          name: 'TOKEN',
          placeholder: 'PLACEHOLDER-1',
          value: 'real-value',
          hosts: parseHostPatterns([`127.0.0.1:${port}`]),
        },
      ],
      onDecision: (decision) => decisions.push(decision),
    });
  });
  afterAll(async () => {
    await proxy.close();
    upstream.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('forwards a plain HTTP request to an allowed host, putting the bound secret in headers, target and body', async () => {
    const answer = await viaProxy(
      socketPath,
      `http://127.0.0.1:${port}/p?k=PLACEHOLDER-1`,
      { authorization: 'Bearer PLACEHOLDER-1', 'content-type': 'text/plain' },
      'token=PLACEHOLDER-1',
    );
    expect(answer).toEqual({
      status: 200,
      body: '/p?k=real-value auth=Bearer real-value body=token=real-value',
    });
    expect(decisions.at(-1)).toMatchObject({ host: `127.0.0.1:${port}`, decision: 'allowed', via: 'http' });
  });

  it('refuses another port with 403 and reports it', async () => {
    const answer = await viaProxy(socketPath, `http://127.0.0.1:${port + 1}/`);
    expect(answer.status).toBe(403);
    expect(decisions.at(-1)).toEqual({ host: `127.0.0.1:${port + 1}`, decision: 'refused', via: 'http' });
  });

  it('tunnels CONNECT to an allowed host (saying the secret could not be put in) and refuses others', async () => {
    expect(await connectVia(socketPath, `127.0.0.1:${port}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(decisions.at(-1)).toMatchObject({
      decision: 'allowed',
      via: 'connect',
      secretNotSubstituted: 'TOKEN',
    });
    expect(await connectVia(socketPath, 'example.com:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(decisions.at(-1)).toMatchObject({ host: 'example.com:443', decision: 'refused', via: 'connect' });
  });

  it('answers 400 to a request that is not in proxy form', async () => {
    expect((await viaProxy(socketPath, '/relative')).status).toBe(400);
  });
});
