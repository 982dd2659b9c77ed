import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

/** The answer of a raw HTTP request. */
export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/**
 * A raw HTTP request (fetch cannot set Host or pick the local address), for the edge cases a
 * client library never sends. `localAddress` picks the client's address in 127.0.0.0/8.
 */
export function raw(
  url: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    localAddress?: string;
  },
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** A plain TCP connection to the gateway whose closing can be awaited. */
export interface OpenSocket {
  socket: Socket;
  /** Resolves when the connection is closed (by either side). */
  closed: Promise<void>;
  /** Everything the server sent. */
  received: () => string;
}

/** Opens a TCP connection from `localAddress` and waits until it is established. */
export async function openSocket(url: string, localAddress = '127.0.0.1'): Promise<OpenSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, closed, received: () => received };
}
