import { isIPv4, isIPv6 } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { httpError } from './http-error.js';

export interface HostGuardOptions {
  /** The address the server is bound to; without `allowedHosts` the guard is active only for loopback binds. */
  bindHost: string;
  /** Origins allowed besides loopback ones (the CORS allow-list; `*` allows any). */
  allowedOrigins?: readonly string[];
  /**
   * Host names (no port, case-insensitive) the gateway may be reached by besides loopback literals,
   * e.g. `aperture.internal` behind a proxy (`http.allowedHosts`). Setting it turns the guard on for
   * every bind address, not only loopback ones.
   */
  allowedHosts?: readonly string[];
}

/**
 * True when `host` is a loopback address: `localhost`, an IPv4 literal in 127.0.0.0/8, `::1` (with
 * or without brackets) or an IPv4-mapped 127.x address. Only literals count: a name that merely
 * starts with `127.` (`127.0.0.1.evil.example`) resolves through DNS, which an attacker controls.
 */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost') return true;
  if (isIPv4(name)) return name.startsWith('127.');
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (!isIPv6(bare)) return false;
  return ipv6IsLoopback(bare);
}

/** True for an IP address literal (IPv4, or IPv6 with or without brackets). */
function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIPv4(host) || isIPv6(bare);
}

/** `::1`, `0:0:…:1`, and `::ffff:127.x.y.z` in either notation. */
function ipv6IsLoopback(address: string): boolean {
  // The URL parser brings every spelling to its canonical, compressed form.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  if (canonical === '::1') return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(canonical);
  return mapped !== null && mapped[1] !== undefined && Number.parseInt(mapped[1], 16) >> 8 === 127;
}

/**
 * The hostname of a Host header, normalised by the URL parser (`127.1` → `127.0.0.1`, `[0::1]` →
 * `[::1]`, lower case), or undefined when the header is not `host[:port]` — userinfo, a path or
 * spaces would make the parser read a different host than a DNS resolver would.
 */
export function hostnameOfHostHeader(header: string): string | undefined {
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/.test(header)) return undefined;
  try {
    return new URL(`http://${header}/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The hostname of an Origin header (`scheme://host[:port]`, nothing else), or undefined when it
 * is not an http(s) origin exactly as a browser sends it.
 */
export function hostnameOfOrigin(origin: string): string | undefined {
  // Exact form only: `http://127.0.0.1@evil.example`, a path or a trailing slash is no origin.
  const match = /^https?:\/\/([^/?#@\s]+)$/i.exec(origin);
  return match?.[1] === undefined ? undefined : hostnameOfHostHeader(match[1]);
}

/**
 * DNS-rebinding protection. On a loopback bind (or any bind once `allowedHosts` is set) a request
 * is refused with 403 unless its Host header names a loopback literal, `localhost` or an allowed
 * host (on a non-loopback bind: also any IP literal, since an IP cannot be rebound), and unless its
 * Origin, when sent and not in the CORS allow-list, names one of the same. Any port is accepted,
 * since a local page on another port is still local.
 */
export function hostGuard(options: HostGuardOptions): MiddlewareHandler {
  const allowedHosts = new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase()));
  const loopbackBind = isLoopback(options.bindHost);
  if (!loopbackBind && allowedHosts.size === 0) return async (_c, next) => next();
  const accepted = (hostname: string): boolean =>
    isLoopback(hostname) || allowedHosts.has(hostname) || (!loopbackBind && isIpLiteral(hostname));
  const listed = options.allowedOrigins ?? [];
  return async (c, next) => {
    const host = c.req.header('host');
    const hostname = host === undefined ? undefined : hostnameOfHostHeader(host);
    if (hostname === undefined || !accepted(hostname)) {
      return httpError(
        c,
        new GatewayError(
          'forbidden',
          `Host "${host ?? ''}" is not allowed on this gateway (loopback addresses, localhost and http.allowedHosts are)`,
        ),
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !listed.includes('*') && !listed.includes(origin)) {
      // `null` (sandboxed frames, file: pages) hides where a request comes from: not a local page.
      const originHost = hostnameOfOrigin(origin);
      if (originHost === undefined || !accepted(originHost)) {
        return httpError(c, new GatewayError('forbidden', `Origin "${origin}" is not allowed`));
      }
    }
    return next();
  };
}
