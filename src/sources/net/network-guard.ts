import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { isForbiddenAddress } from './forbidden-address.js';

/** Resolves a host name to all its addresses (the shape of `dns.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver, as sockets use it (`getaddrinfo`, /etc/hosts included). */
export const systemResolveHost: ResolveHost = (hostname) =>
  dns.lookup(hostname, { all: true, verbatim: true });

export interface NetworkGuardOptions {
  /** Allow non-public addresses (loopback, private, link-local…). Default: false. */
  allowPrivateNetwork?: boolean;
  /** Host resolution; injectable so tests run without a network. Default: `systemResolveHost`. */
  resolveHost?: ResolveHost;
}

/**
 * Keeps a remote source (an OpenAPI service, an A2A agent) from being turned against the gateway's own network (SSRF): only
 * http(s) URLs, and, unless private networks are allowed, only hosts whose every address is public.
 *
 * Two checks, because one is not enough:
 * - `check(url)` before a request resolves the host and refuses with a clear `forbidden` error;
 * - `dispatcher()` pins the connection itself: its connector re-checks IP literals and resolves
 *   names through the same guard, so the address the socket connects to is the address that was
 *   checked. Without it a DNS-rebinding host could answer the check with a public address and
 *   the connect with 169.254.169.254, and a redirect could lead to an internal IP literal.
 */
export class NetworkGuard {
  readonly allowPrivateNetwork: boolean;
  private readonly resolveHost: ResolveHost;
  private agent: Agent | undefined;

  constructor(options: NetworkGuardOptions = {}) {
    this.allowPrivateNetwork = options.allowPrivateNetwork ?? false;
    this.resolveHost = options.resolveHost ?? systemResolveHost;
  }

  /**
   * Throws `forbidden` unless `url` is http(s) and (when private networks are not allowed) its
   * host resolves only to public addresses; `backend_unavailable` when the host does not resolve.
   */
  async check(url: URL | string): Promise<void> {
    const parsed = typeof url === 'string' ? parseUrl(url) : url;
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new GatewayError(
        'forbidden',
        `URL scheme "${parsed.protocol}" is not allowed; only http and https are`,
        { details: { url: parsed.href } },
      );
    }
    if (this.allowPrivateNetwork) return;
    await this.resolveAllowed(parsed.hostname);
  }

  /** The addresses of `hostname` when all are allowed; throws `forbidden` otherwise. */
  async resolveAllowed(hostname: string): Promise<LookupAddress[]> {
    const bare = stripBrackets(hostname);
    const family = isIP(bare);
    if (family !== 0) {
      if (!this.allowPrivateNetwork && isForbiddenAddress(bare)) throw forbidden(hostname);
      return [{ address: bare, family }];
    }
    let addresses: readonly LookupAddress[];
    try {
      addresses = await this.resolveHost(bare);
    } catch (error) {
      throw new GatewayError('backend_unavailable', `Cannot resolve host "${bare}"`, {
        cause: error,
        details: { host: bare },
      });
    }
    if (addresses.length === 0) {
      throw new GatewayError('backend_unavailable', `Host "${bare}" has no address`, {
        details: { host: bare },
      });
    }
    // One non-public answer is enough to refuse: mixing answers is how rebinding attacks start.
    if (!this.allowPrivateNetwork && addresses.some((a) => isForbiddenAddress(a.address))) {
      throw forbidden(bare);
    }
    return [...addresses];
  }

  /**
   * The undici dispatcher that pins every connection to checked addresses (see the class
   * comment), or undefined when private networks are allowed and the default one will do.
   * Made once and shared by all requests of the source (keep-alive pooling).
   */
  dispatcher(): Dispatcher | undefined {
    if (this.allowPrivateNetwork) return undefined;
    this.agent ??= new Agent({ connect: this.connector() });
    return this.agent;
  }

  /** Closes pooled connections (when the source is unloaded). */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.close();
  }

  private connector(): buildConnector.connector {
    const base = buildConnector({ lookup: this.connectLookup });
    return (options, callback) => {
      // IP literals never reach `lookup`, so they are checked here (redirects included).
      const host = stripBrackets(options.hostname);
      if (isIP(host) !== 0 && isForbiddenAddress(host)) {
        callback(forbidden(options.hostname), null);
        return;
      }
      base(options, callback);
    };
  }

  /** `net.connect`'s lookup, answering only with allowed addresses. */
  private readonly connectLookup: LookupFunction = (hostname, options, callback) => {
    this.resolveAllowed(hostname).then(
      (all) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const wanted = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        if (options.all) {
          callback(null, wanted);
          return;
        }
        const first = wanted[0];
        if (first) callback(null, first.address, first.family);
        else
          callback(
            Object.assign(new Error(`No IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
          );
      },
      (error: Error) => callback(error, ''),
    );
  };
}

function forbidden(host: string): GatewayError {
  return new GatewayError(
    'forbidden',
    `Refusing to connect to "${host}": it is (or resolves to) a loopback, private, link-local or ` +
      'other non-public address. Set allowPrivateNetwork: true on this source to allow it.',
    { details: { host } },
  );
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch (error) {
    throw new GatewayError('config_invalid', `"${url}" is not a URL`, { cause: error });
  }
}
