import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../foundation/ports/logger.js';
import { isLoopback } from './host-guard.js';

/** Descriptors kept free for everything but client connections (downstream processes, files, DNS). */
const FD_RESERVE = 128;

export interface ConnectionGuardOptions {
  /** Open connections at most (`http.maxConnections`); clamped below the process's file limit. */
  maxConnections: number;
  /**
   * Connections one address may hold until a request on them authenticates; undefined: no
   * per-address cap (the global one only). {@link perAddressCap} decides it from the bind.
   */
  maxPerAddress: number | undefined;
  log: Logger;
  /** The soft open-file limit; default read from `/proc/self/limits` (undefined elsewhere). */
  fileLimit?: number | undefined;
}

/**
 * Bounds the connections of the HTTP server so that slow or idle clients cannot exhaust file
 * descriptors: a global cap (Node's `server.maxConnections`, which closes excess sockets as soon
 * as they are accepted) and a per-address cap on connections that have not yet carried an
 * authenticated request. A socket `trust`ed by the auth layer leaves its address's count, so
 * many agents behind one NAT with valid credentials are limited only by the global cap.
 */
export class ConnectionGuard {
  /** The global cap in force (the configured one, or less when the file limit is lower). */
  readonly maxConnections: number;
  private readonly maxPerAddress: number;
  private readonly untrusted = new Map<string, Set<Socket>>();
  private readonly trusted = new WeakSet<Socket>();
  private readonly log: Logger;
  private refusedSinceLog = 0;

  constructor(options: ConnectionGuardOptions) {
    this.log = options.log;
    this.maxPerAddress = options.maxPerAddress ?? Number.POSITIVE_INFINITY;
    const files = 'fileLimit' in options ? options.fileLimit : fileSoftLimit();
    const room = files === undefined ? Number.POSITIVE_INFINITY : Math.max(16, files - FD_RESERVE);
    this.maxConnections = Math.min(options.maxConnections, room);
    if (this.maxConnections < options.maxConnections) {
      // Past the file limit accept() fails for everyone, health probes included.
      this.log.warn(
        { configured: options.maxConnections, fileLimit: files, effective: this.maxConnections },
        'http.maxConnections is above what the open-file limit allows; using the lower value (raise ulimit -n)',
      );
    }
  }

  /** Applies the caps to a server (before it accepts connections). */
  attach(server: Server): void {
    server.maxConnections = this.maxConnections;
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  /** Marks a connection as having carried an authenticated request: it no longer counts per address. */
  trust(socket: Socket | undefined): void {
    if (!socket || this.trusted.has(socket)) return;
    this.trusted.add(socket);
    const address = socket.remoteAddress ?? '';
    const sockets = this.untrusted.get(address);
    if (sockets?.delete(socket) && sockets.size === 0) this.untrusted.delete(address);
  }

  /** How many unauthenticated connections an address holds (for tests and diagnostics). */
  untrustedCount(address: string): number {
    return this.untrusted.get(address)?.size ?? 0;
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    let sockets = this.untrusted.get(address);
    if (sockets && sockets.size >= this.maxPerAddress) {
      // Closing at once frees the descriptor; the client sees a reset, not a hang.
      socket.destroy();
      if (this.refusedSinceLog++ % 1000 === 0) {
        this.log.warn(
          { address, limit: this.maxPerAddress },
          'connection refused: too many unauthenticated connections from one address (http.maxConnectionsPerAddress)',
        );
      }
      return;
    }
    if (!sockets) {
      sockets = new Set();
      this.untrusted.set(address, sockets);
    }
    sockets.add(socket);
    socket.once('close', () => {
      const current = this.untrusted.get(address);
      if (current?.delete(socket) && current.size === 0) this.untrusted.delete(address);
    });
  }
}

/**
 * The per-address cap in force for a listener: none on a loopback bind without auth, the
 * configured `http.maxConnectionsPerAddress` everywhere else. On such a bind every peer is the
 * local user, all at 127.0.0.1, and any of them may already do everything: the cap would only
 * reset the user's own clients (a hundred SDK clients lost a third of their calls), while the
 * global cap still bounds the descriptors. With auth, an unauthenticated local process is what
 * the cap holds back, as on any other bind.
 */
export function perAddressCap(options: {
  bindHost: string;
  authConfigured: boolean;
  configured: number;
}): number | undefined {
  return isLoopback(options.bindHost) && !options.authConfigured ? undefined : options.configured;
}

/** The soft `Max open files` of this process (Linux), or undefined when it cannot be read. */
export function fileSoftLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    const value = soft === undefined ? Number.NaN : Number(soft);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
