import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { type RedisServerHandle, redisServerBin, startRedisServer } from './redis-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');

function findNginx(): string | undefined {
  const dirs = [
    ...(process.env.PATH ?? '').split(path.delimiter),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/bin',
  ];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, 'nginx');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Debian's `nginx` binary (nginx-light), or undefined: cluster tests then skip by name. `NGINX_PATH`
 * names another one (a path that does not exist counts as missing).
 */
export const nginxBin: string | undefined =
  process.env.NGINX_PATH !== undefined
    ? existsSync(process.env.NGINX_PATH)
      ? process.env.NGINX_PATH
      : undefined
    : findNginx();

/**
 * Why a cluster test cannot run here (redis-server or nginx missing), or '' when it can. Tests put
 * it in their names, so `npm test` on a machine without the packages reports them skipped by name.
 */
export function clusterMissing(): string {
  const missing = [redisServerBin ? '' : 'redis-server', nginxBin ? '' : 'nginx'].filter(Boolean);
  return missing.length > 0 ? ` (skipped: ${missing.join(' and ')} not installed; see .ci/run)` : '';
}

/** One `aperture serve` process of the cluster. */
export interface Replica {
  index: number;
  /** `http://127.0.0.1:PORT`, the replica itself (not through the balancer). */
  url: string;
  /** `127.0.0.1:PORT`, as nginx writes it in `$upstream_addr`. */
  address: string;
  port: number;
  child: ChildProcess;
  /** Its stderr so far (the gateway logs there). */
  stderr(): string;
}

/** One request as the balancer logged it: which replica answered (the last one tried) and how. */
export interface BalancedRequest {
  method: string;
  uri: string;
  status: number;
  /** Every upstream tried, in order ("127.0.0.1:P"); more than one when nginx retried. */
  upstreams: string[];
  /** The replica index that gave the answer, or -1 (no upstream answered). */
  replica: number;
  sessionId: string;
}

/** Redis, N replicas and an nginx in front of them; everything is stopped on dispose. */
export interface ReplicaCluster extends AsyncDisposable {
  /** The balancer: `http://127.0.0.1:PORT` (append `/mcp`, `/api/…`). */
  url: string;
  redis: RedisServerHandle;
  replicas: Replica[];
  /** The config file every replica reads. */
  configFile: string;
  /** SIGKILL a replica (no drain, no goodbye) and wait until it is gone. */
  kill(index: number): Promise<void>;
  /** Start a killed or stopped replica again on its port; resolves once the balancer uses it again. */
  restart(index: number): Promise<void>;
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
  /** Every request the balancer has logged so far, in order. */
  requests(): BalancedRequest[];
  /** The replica index of an `X-Upstream-Addr` the balancer adds to each answer, or -1. */
  replicaAt(upstreamAddr: string | null): number;
  /** Requests answered per replica index (from the balancer's log). */
  perReplica(filter?: (request: BalancedRequest) => boolean): number[];
  /** nginx's error log (what it retried and why). */
  balancerErrors(): string;
}

export interface ReplicaClusterOptions {
  replicas?: number;
  /**
   * The replicas' config (without `state`: the cluster adds `state: { driver: redis, redis: { url,
   * prefix } }`). Relative paths resolve against the temp dir the file is written to.
   */
  config?: Record<string, unknown>;
  /** Extra environment for every replica. */
  env?: Record<string, string>;
  /** Extra `aperture serve` flags. */
  args?: string[];
}

/** Children still running, killed if the test process itself goes away mid-run. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Starts `aperture serve --port PORT` as a user would; resolves once it says it listens. */
async function startReplica(
  index: number,
  port: number,
  configFile: string,
  stateDir: string,
  options: ReplicaClusterOptions,
): Promise<Replica> {
  const child = track(
    spawn(
      process.execPath,
      [CLI, 'serve', '--config', configFile, '--port', String(port), ...(options.args ?? [])],
      {
        cwd: path.dirname(configFile),
        env: { ...process.env, APERTURE_STATE_DIR: stateDir, ...options.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    ),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    // Bounded: a long test must not grow a replica's log without end.
    stderr = (stderr + chunk.toString()).slice(-200_000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica ${index} did not start:\n${stderr}`)), 30_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`replica ${index} exited with ${code ?? signal}:\n${stderr}`));
    });
  });
  // In rotation only once ready, as a balancer's readiness probe would have it: every server had
  // its first try (or `startup.waitMs` is over), so a session moved here finds the same tools.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    await response?.body?.cancel();
    if (response?.ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`replica ${index} did not become ready:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { index, url, port, address: `127.0.0.1:${port}`, child, stderr: () => stderr };
}

/** The proxy rules compose.yaml's balancer uses; the test balancer includes the same file. */
export const PROXY_RULES = path.join(ROOT, 'deploy/nginx/aperture-proxy.conf');

/**
 * The balancer's config: the deployed proxy rules (deploy/nginx/aperture-proxy.conf: round-robin
 * per request with no affinity, keep-alive to the replicas, no buffering, long read timeouts, the
 * next replica on a connection error) around an upstream of this cluster's replicas, with every
 * path nginx writes under `dir`, so it runs as the current user.
 */
export function nginxConfig(dir: string, port: number, upstreams: string[]): string {
  const temp = (name: string) => path.join(dir, 'temp', name);
  return `daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  log_format replicas '$upstream_addr|$request_method|$status|$http_mcp_session_id|$request_uri';
  access_log ${path.join(dir, 'access.log')} replicas;
  upstream aperture {
${upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=5s;`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 16m;
    location / {
      include ${PROXY_RULES};
      # For tests: which replica answers (a stream's is known only once it ends in the log).
      add_header X-Upstream-Addr $upstream_addr always;
    }
  }
}
`;
}

/** Resolves once nginx answers on its port (any HTTP status), or throws with its error log. */
async function waitForNginx(url: string, child: ChildProcess, errorLog: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${errorLog()}`);
    try {
      await fetch(`${url}/healthz`);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not answer at ${url}:\n${errorLog()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Starts a real Redis, `replicas` (default 3) `aperture serve` processes sharing it
 * (`state.driver: redis`), and a real nginx balancing over them. Returns null when redis-server or
 * nginx is missing (see {@link clusterMissing}). Dispose it (`await using`): every process is
 * stopped and the temp dir removed.
 */
export async function startReplicaCluster(
  options: ReplicaClusterOptions = {},
): Promise<ReplicaCluster | null> {
  if (!nginxBin) return null;
  const redis = await startRedisServer();
  if (!redis) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'aperture-cluster-'));
  const replicas: Replica[] = [];
  let nginx: ChildProcess | undefined;
  const dispose = async () => {
    if (nginx) await stop(nginx, 'SIGQUIT');
    await Promise.all(replicas.map((replica) => stop(replica.child)));
    await redis.stop();
    await redis[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const configFile = path.join(dir, 'aperture.json');
    const prefix = `aperture-test-${path.basename(dir)}:`;
    const config = {
      ...options.config,
      state: { driver: 'redis', redis: { url: redis.url, prefix } },
    };
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    const count = options.replicas ?? 3;
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    const stateDir = (index: number) => path.join(dir, `replica-${index}`);
    // One after the other: N cold starts at once on a small machine only make each one slower.
    for (const [index, port] of ports.entries()) {
      mkdirSync(stateDir(index), { recursive: true });
      replicas.push(await startReplica(index, port, configFile, stateDir(index), options));
    }

    const nginxDir = path.join(dir, 'nginx');
    for (const name of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
      mkdirSync(path.join(nginxDir, 'temp', name), { recursive: true });
      // Started as root (CI), nginx's workers run as an unprivileged user: let them write here.
      chmodSync(path.join(nginxDir, 'temp', name), 0o777);
    }
    for (const folder of [dir, nginxDir, path.join(nginxDir, 'temp')]) chmodSync(folder, 0o755);
    const nginxPort = await freePort();
    const nginxConf = path.join(nginxDir, 'nginx.conf');
    writeFileSync(
      nginxConf,
      nginxConfig(
        nginxDir,
        nginxPort,
        replicas.map((r) => r.address),
      ),
    );
    const errorLogFile = path.join(nginxDir, 'error.log');
    const errorLog = () => (existsSync(errorLogFile) ? readFileSync(errorLogFile, 'utf8') : '');
    // -e: the error log before the config is read (the compiled-in default is under /var/log).
    nginx = track(
      spawn(nginxBin, ['-p', nginxDir, '-c', nginxConf, '-e', errorLogFile], {
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
    const url = `http://127.0.0.1:${nginxPort}`;
    await waitForNginx(url, nginx, errorLog);

    const accessLog = path.join(nginxDir, 'access.log');
    const byAddress = (address: string) => replicas.findIndex((r) => r.address === address);
    const requests = (): BalancedRequest[] => {
      if (!existsSync(accessLog)) return [];
      return readFileSync(accessLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [addresses = '', method = '', status = '0', sessionId = '', uri = ''] = line.split('|');
          const upstreams = addresses
            .split(/[,:]\s+/)
            .map((a) => a.trim())
            .filter((a) => a && a !== '-');
          const last = upstreams.at(-1) ?? '';
          return {
            method,
            uri,
            status: Number(status),
            upstreams,
            replica: byAddress(last),
            sessionId: sessionId === '-' ? '' : sessionId,
          };
        });
    };

    return {
      url,
      redis,
      replicas,
      configFile,
      async kill(index) {
        const replica = replicas[index];
        if (!replica) throw new Error(`no replica ${index}`);
        await stop(replica.child, 'SIGKILL');
      },
      async restart(index) {
        const replica = replicas[index];
        if (!replica) throw new Error(`no replica ${index}`);
        await stop(replica.child);
        replicas[index] = await startReplica(index, replica.port, configFile, stateDir(index), options);
        // Back in rotation only once nginx tries it again (a failed upstream sits out fail_timeout).
        const deadline = Date.now() + 15_000;
        for (;;) {
          const response = await fetch(`${url}/healthz`);
          await response.body?.cancel();
          if (byAddress(response.headers.get('x-upstream-addr')?.split(/,\s*/).at(-1) ?? '') === index) break;
          if (Date.now() > deadline) throw new Error(`the balancer did not take replica ${index} back`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      stopRedis: () => redis.stop(),
      startRedis: () => redis.start(),
      requests,
      replicaAt: (upstreamAddr) => byAddress(upstreamAddr?.split(/,\s*/).at(-1)?.trim() ?? ''),
      perReplica(filter = () => true) {
        const counts = replicas.map(() => 0);
        for (const request of requests()) {
          if (request.replica >= 0 && filter(request))
            counts[request.replica] = (counts[request.replica] ?? 0) + 1;
        }
        return counts;
      },
      balancerErrors: errorLog,
      [Symbol.asyncDispose]: dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
