import type { MiddlewareHandler } from 'hono';
import { httpError } from './http-error.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface HostGuardOptions {
  /** The address the server is bound to; the guard is active only for loopback binds. */
  bindHost: string;
  /** Origins allowed besides loopback ones (the CORS allow-list; `*` allows any). */
  allowedOrigins?: readonly string[];
}

/** True when `host` is a loopback bind address. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
}

/**
 * DNS-rebinding protection for servers bound to loopback: a request whose Host header, or whose
 * Origin (when present and not in the CORS allow-list), names anything but a loopback host is
 * refused with 403. Any port is accepted, since a local page on another port is still local.
 */
export function hostGuard(options: HostGuardOptions): MiddlewareHandler {
  if (!isLoopback(options.bindHost)) return async (_c, next) => next();
  return async (c, next) => {
    const host = c.req.header('host');
    if (!host || !isLoopback(hostnameOf(host))) {
      return httpError(
        c,
        403,
        'forbidden',
        `Host "${host ?? ''}" is not allowed on a loopback-bound gateway`,
      );
    }
    const origin = c.req.header('origin');
    const listed = options.allowedOrigins ?? [];
    if (origin !== undefined && origin !== 'null' && !listed.includes('*') && !listed.includes(origin)) {
      let hostname: string;
      try {
        hostname = new URL(origin).hostname;
      } catch {
        return httpError(c, 403, 'forbidden', `Origin "${origin}" is not allowed`);
      }
      if (!isLoopback(hostname)) return httpError(c, 403, 'forbidden', `Origin "${origin}" is not allowed`);
    }
    return next();
  };
}

/** `example.com:8080` → `example.com`; `[::1]:80` → `[::1]`. */
function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}
