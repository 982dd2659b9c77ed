import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import { anyHostMatches, type HostPattern } from './host-pattern.js';

/*
 * The egress proxy of one sandbox whose network is restricted to an allow list. It listens on a
 * unix socket that is bound into the sandbox (the sandbox has no network of its own; the launcher
 * bridges a loopback port to the socket) and forwards what the allow list admits: plain HTTP
 * requests in proxy form (`GET http://host/…`) and CONNECT tunnels (HTTPS and anything else).
 * Everything else is refused with 403, and every decision is reported.
 *
 * Secrets bound to hosts: the sandboxed process sees a placeholder instead of the value; in a
 * plain-HTTP request to one of the secret's hosts the proxy replaces the placeholder by the value
 * (request target, headers, and a body up to 1 MiB). Inside a CONNECT tunnel the bytes are TLS:
 * nothing can be replaced, the placeholder goes through as it is (the secret never enters the
 * sandbox, and such a request fails to authenticate).
 */

/** A secret the proxy puts into requests to its hosts. */
export interface BoundSecret {
  /** The variable's name (for messages). */
  name: string;
  placeholder: string;
  value: string;
  hosts: readonly HostPattern[];
}

/** One decision of the proxy. */
export interface EgressDecision {
  /** `host:port` as asked. */
  host: string;
  decision: 'allowed' | 'refused';
  /** `http` (forwarded request) or `connect` (tunnel). */
  via: 'http' | 'connect';
  /** Set when a bound secret could not be put into the request (a tunnel to its host). */
  secretNotSubstituted?: string;
}

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** The unix socket to listen on (created; removed on close). */
  socketPath: string;
  /** The hosts it may reach; a bound secret's hosts are added. */
  allow: readonly HostPattern[];
  secrets?: readonly BoundSecret[];
  /** Told of each decision (log it, count it). */
  onDecision: (decision: EgressDecision) => void;
}

/** A running proxy. */
export interface EgressProxy {
  close(): Promise<void>;
}

/** Largest request body searched for placeholders; larger ones are passed on as they are. */
const MAX_SUBSTITUTED_BODY = 1024 * 1024;

/** Headers that concern the hop to the proxy, not the request. */
const HOP_HEADERS = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']);

/** Starts a proxy listening on `options.socketPath`. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const secrets = options.secrets ?? [];
  const allow = [...options.allow, ...secrets.flatMap((secret) => secret.hosts)];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => forward(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  function target(hostPort: string, defaultPort: number): { host: string; port: number } | undefined {
    try {
      const url = new URL(`http://${hostPort}`);
      return {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? defaultPort : Number(url.port),
      };
    } catch {
      return undefined;
    }
  }

  function forward(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('the sandbox proxy takes absolute http:// URLs\n');
      return;
    }
    const port = url.port === '' ? 80 : Number(url.port);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const label = `${host}:${port}`;
    if (url.protocol !== 'http:' || !anyHostMatches(allow, host, port)) {
      options.onDecision({ host: label, decision: 'refused', via: 'http' });
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end(`refused by the sandbox: ${label} is not in sandbox.network.allow\n`);
      return;
    }
    options.onDecision({ host: label, decision: 'allowed', via: 'http' });
    const bound = secrets.filter((secret) => anyHostMatches(secret.hosts, host, port));
    const put = (text: string): string =>
      bound.reduce((out, secret) => out.replaceAll(secret.placeholder, secret.value), text);
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (HOP_HEADERS.has(name) || value === undefined) continue;
      headers[name] = Array.isArray(value) ? value.map(put) : put(value);
    }
    const send = (body: Buffer | undefined): void => {
      if (body !== undefined) {
        headers['content-length'] = String(body.length);
        delete headers['transfer-encoding'];
      }
      const upstream = request(
        { host, port, method: req.method, path: put(`${url.pathname}${url.search}`), headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`the sandbox proxy could not reach ${label}: ${error.message}\n`);
      });
      if (body === undefined) req.pipe(upstream);
      else upstream.end(body);
    };
    const length = Number(req.headers['content-length'] ?? Number.NaN);
    if (bound.length > 0 && Number.isFinite(length) && length > 0 && length <= MAX_SUBSTITUTED_BODY) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => send(Buffer.from(put(Buffer.concat(chunks).toString('utf8')), 'utf8')));
    } else {
      send(undefined);
    }
  }

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const to = target(req.url ?? '', 443);
    const label = to ? `${to.host}:${to.port}` : String(req.url);
    if (to === undefined || !anyHostMatches(allow, to.host, to.port)) {
      options.onDecision({ host: label, decision: 'refused', via: 'connect' });
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nrefused by the sandbox\n');
      return;
    }
    const unsubstituted = secrets.find((secret) => anyHostMatches(secret.hosts, to.host, to.port));
    options.onDecision({
      host: label,
      decision: 'allowed',
      via: 'connect',
      ...(unsubstituted ? { secretNotSubstituted: unsubstituted.name } : {}),
    });
    const upstream = connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    const end = (): void => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    client.on('error', end);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
