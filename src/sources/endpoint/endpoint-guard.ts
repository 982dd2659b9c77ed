import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import {
  NetworkGuard,
  type NetworkGuardOptions,
  type ResolveHost,
  systemResolveHost,
} from '../net/network-guard.js';

/**
 * The network guard of declared endpoints: the hosts the operator wrote in `url:` are reached
 * whatever their address (an internal service on loopback or a private network is the usual
 * reason to declare an endpoint), while every other host — a redirect's target above all — must
 * be public unless the entry sets `allowPrivateNetwork`. So a service that answers with a redirect
 * to 169.254.169.254 or to another loopback port is refused (`forbidden`), not followed.
 *
 * The connection is pinned as the base guard pins it: names resolve through the same check, IP
 * literals are checked at connect time.
 */
export class EndpointGuard extends NetworkGuard {
  private readonly configured: ReadonlySet<string>;
  private readonly resolveName: ResolveHost;
  private pinned: Agent | undefined;

  constructor(configuredHosts: readonly string[], options: NetworkGuardOptions = {}) {
    super(options);
    this.configured = new Set(configuredHosts.map(bare));
    this.resolveName = options.resolveHost ?? systemResolveHost;
  }

  override async check(url: URL | string): Promise<void> {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    if (this.configured.has(bare(parsed.hostname)) && isHttp(parsed)) return;
    await super.check(parsed);
  }

  override async resolveAllowed(hostname: string): Promise<LookupAddress[]> {
    if (!this.configured.has(bare(hostname))) return super.resolveAllowed(hostname);
    const host = bare(hostname);
    const family = isIP(host);
    if (family !== 0) return [{ address: host, family }];
    // The operator's own host: resolved, not judged (a name may resolve to a private address).
    try {
      const addresses = await this.resolveName(host);
      if (addresses.length > 0) return [...addresses];
    } catch (error) {
      throw new GatewayError('backend_unavailable', `Cannot resolve host "${host}"`, {
        cause: error,
        details: { host },
      });
    }
    throw new GatewayError('backend_unavailable', `Host "${host}" has no address`, { details: { host } });
  }

  override dispatcher(): Dispatcher | undefined {
    if (this.allowPrivateNetwork) return undefined;
    this.pinned ??= new Agent({ connect: this.pinnedConnector() });
    return this.pinned;
  }

  override async close(): Promise<void> {
    const agent = this.pinned;
    this.pinned = undefined;
    await Promise.all([agent?.close(), super.close()]);
  }

  private pinnedConnector(): buildConnector.connector {
    const lookup: LookupFunction = (hostname, options, callback) => {
      this.resolveAllowed(hostname).then(
        (all) => {
          const wanted =
            options.family === 4 || options.family === 6
              ? all.filter((a) => a.family === options.family)
              : all;
          if (options.all) return callback(null, wanted);
          const first = wanted[0];
          if (first) callback(null, first.address, first.family);
          else callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        },
        (error: Error) => callback(error, ''),
      );
    };
    const base = buildConnector({ lookup });
    return (options, callback) => {
      // IP literals never reach `lookup`: checked here (a redirect to an internal IP literal).
      const host = bare(options.hostname);
      if (isIP(host) === 0) return base(options, callback);
      this.resolveAllowed(host).then(
        () => base(options, callback),
        (error: Error) => callback(error, null),
      );
    };
  }
}

function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function isHttp(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}
