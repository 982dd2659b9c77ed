/*
 * The launcher: a small Node program that runs inside the sandbox in front of the server, only when
 * it is needed (limits, or a network restricted to an allow list). It
 *
 * - bridges the egress proxy into the sandbox: the sandbox has its own network namespace with only
 *   a loopback device, so the launcher listens on 127.0.0.1:<port> there and pipes each connection
 *   to the proxy's unix socket (bound into the sandbox), then starts the server with
 *   HTTP_PROXY / HTTPS_PROXY pointing at that port;
 * - enforces the limits by watching the sandbox's PID namespace (its /proc shows only the
 *   sandbox's processes) every 200 ms: resident memory summed over the processes (`memoryMb`),
 *   processes alive (`pids`), CPU seconds used (`cpuSeconds`). Over a limit, it says which on
 *   stderr in a line the gateway recognises (`LIMIT_MARKER`), kills every process of the sandbox
 *   and exits. Rlimits would not do: RLIMIT_NPROC does not apply to root, RLIMIT_AS breaks V8's
 *   reservations, and both are per process rather than per sandbox.
 *
 * It is passed to `node -e` (no file to find inside the sandbox) with its settings as JSON.
 */

import type { SandboxLimits } from './sandbox-profile.js';

/** The line prefix the launcher writes to stderr when a limit is exceeded. */
export const LIMIT_MARKER = '[aperture-sandbox] limit exceeded: ';

/** What the launcher reads from its argument. */
export interface LauncherSettings {
  command: string;
  args: readonly string[];
  /** The egress proxy's unix socket (bound into the sandbox at the same path). */
  proxySocket?: string;
  limits?: SandboxLimits;
}

/** The limit a stderr line of the launcher says was exceeded, and its words, or undefined. */
export function exceededLimitOf(line: string): { limit: string; message: string } | undefined {
  const at = line.indexOf(LIMIT_MARKER);
  if (at === -1) return undefined;
  const message = line.slice(at + LIMIT_MARKER.length).trim();
  const limit = /^(memoryMb|pids|cpuSeconds)\b/.exec(message)?.[1];
  return limit === undefined ? undefined : { limit, message };
}

/** The launcher's source (`node -e`). Plain CommonJS: it runs in whatever node the gateway runs. */
export const LAUNCHER_SCRIPT = `
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const { spawn } = require('node:child_process');
const settings = JSON.parse(process.argv[1]);
const MARKER = ${JSON.stringify(LIMIT_MARKER)};
const limits = settings.limits || {};
let child;
let over = false;
// The gateway signals the whole process group; the server gets the signal itself and the launcher
// waits for it to finish instead of leaving before it.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => {});

function sample() {
  let memoryKb = 0;
  let processes = 0;
  let ticks = 0;
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name) || name === '1' || Number(name) === process.pid) continue;
    try {
      const stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      processes++;
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      const status = fs.readFileSync('/proc/' + name + '/status', 'utf8');
      const rss = /VmRSS:\\s+(\\d+)/.exec(status);
      if (rss) memoryKb += Number(rss[1]);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return { memoryMb: memoryKb / 1024, pids: processes, cpuSeconds: ticks / 100 };
}

function watch() {
  if (over) return;
  const used = sample();
  for (const [limit, unit] of [['memoryMb', 'MiB'], ['pids', 'processes'], ['cpuSeconds', 's']]) {
    const max = limits[limit];
    if (max === undefined || used[limit] <= max) continue;
    over = true;
    fs.writeSync(2, '\\n' + MARKER + limit + ' (used ' + Math.round(used[limit]) + ' ' + unit + ', limit ' + max + ' ' + unit + ')\\n');
    // Every process of the sandbox but the launcher and its init.
    try { process.kill(-1, 'SIGKILL'); } catch {}
    setTimeout(() => process.exit(137), 50);
    return;
  }
}

function start(env) {
  child = spawn(settings.command, settings.args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    fs.writeSync(2, 'cannot start ' + settings.command + ': ' + error.message + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (over) return;
    process.exit(code === null ? 128 + (require('node:os').constants.signals[signal] || 9) : code);
  });
  if (Object.keys(limits).length > 0) setInterval(watch, 200);
}

if (settings.proxySocket) {
  const bridge = net.createServer((inside) => {
    const outside = net.connect(settings.proxySocket);
    inside.pipe(outside).pipe(inside);
    const end = () => { inside.destroy(); outside.destroy(); };
    inside.on('error', end);
    outside.on('error', end);
  });
  bridge.listen(0, '127.0.0.1', () => {
    const proxy = 'http://127.0.0.1:' + bridge.address().port;
    start({
      ...process.env,
      HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy,
      ALL_PROXY: proxy, all_proxy: proxy,
      NO_PROXY: '', no_proxy: '',
    });
  });
} else {
  start(process.env);
}
`;
