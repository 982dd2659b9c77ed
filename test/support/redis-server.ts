import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, 'redis-server');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The `redis-server` binary found on PATH (or in /usr/bin), or undefined. Tests that need a real
 * Redis skip by name when it is missing (`.ci/run` installs it with apt-get), never pass silently.
 * `REDIS_SERVER_PATH` names another one (a path that does not exist counts as missing).
 */
export const redisServerBin: string | undefined =
  process.env.REDIS_SERVER_PATH !== undefined
    ? existsSync(process.env.REDIS_SERVER_PATH)
      ? process.env.REDIS_SERVER_PATH
      : undefined
    : findRedisServer();

/** The suffix of a skipped test's name when redis-server is missing, or nothing. */
export function unlessRedis(): string {
  return redisServerBin ? '' : ' (skipped: redis-server is not installed; see .ci/run)';
}

/** A real redis-server on a loopback port, in its own temp dir, with no persistence. */
export interface RedisServerHandle extends AsyncDisposable {
  /** `redis://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** SIGTERM, then waits for the process to exit. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()); waits until it accepts connections. */
  start(): Promise<void>;
}

/** Resolves once a PING over a raw socket gets +PONG; rejects after the deadline. */
async function waitForPong(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`redis-server exited with ${child.exitCode}: ${stderr()}`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      let data = '';
      socket.setTimeout(500, () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (chunk) => {
        data += chunk.toString();
        if (data.includes('\r\n')) {
          socket.end();
          resolve(data.startsWith('+PONG'));
        }
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts a real redis-server on a free loopback port in a temp dir, with no RDB snapshots and no
 * AOF (so a restart starts empty, as a fresh Redis would). Returns null when the binary is
 * missing so the caller can skip by name (see {@link unlessRedis}).
 */
export async function startRedisServer(): Promise<RedisServerHandle | null> {
  const bin = redisServerBin;
  if (!bin) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'aperture-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stderr = '';

  const start = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    stderr = '';
    const proc = spawn(
      bin,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc.stdout?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child = proc;
    await waitForPong(port, proc, () => stderr);
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };

  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
