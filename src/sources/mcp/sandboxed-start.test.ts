import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import { detectSandboxEngine } from '../../foundation/sandbox/sandbox-engine.js';
import { sandboxedStart } from './sandboxed-start.js';
import { isPermanentFailure } from './spawn-failure.js';

const request = { command: 'node', args: ['server.js'], env: { KEY: 'v' } };

describe('sandboxedStart', () => {
  it('leaves the start unchanged when sandboxing is off or unavailable (not required)', async () => {
    expect(await sandboxedStart(undefined, request, silentLogger)).toEqual({});
    expect(await sandboxedStart({ kind: 'off' }, request, silentLogger)).toEqual({});
    expect(await sandboxedStart({ kind: 'unconfined', reason: 'no bwrap' }, request, silentLogger)).toEqual(
      {},
    );
  });

  it('refuses a required sandbox without an engine: backend_unavailable, permanent, naming the reason', async () => {
    const failure = await sandboxedStart(
      { kind: 'refused', reason: 'servers.x.sandbox is "required" but no sandbox engine is available: …' },
      request,
      silentLogger,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('backend_unavailable');
    expect((failure as GatewayError).message).toMatch(/servers\.x\.sandbox is "required"/);
    expect(isPermanentFailure(failure)).toBeDefined();
  });

  const engine = detectSandboxEngine();
  it.skipIf(!engine.available)(
    'reports a command missing on the host as spawn would (command not found)',
    async () => {
      if (!engine.available) return;
      const profile = {
        label: 'x',
        bwrap: engine.path,
        scratchDir: `/tmp/aperture-sandboxed-start-${process.pid}`,
        writable: [],
        deny: [],
        network: { mode: 'open' as const },
      };
      const failure = await sandboxedStart(
        { kind: 'sandboxed', profile },
        { ...request, command: 'no-such-command-4711' },
        silentLogger,
      ).catch((error: unknown) => error);
      expect((failure as GatewayError).message).toMatch(
        /cannot start "no-such-command-4711": command not found/,
      );
    },
  );

  it.skipIf(!engine.available)(
    'logs every egress decision with audit: all, only the refused ones with audit: refused',
    async () => {
      if (!engine.available) return;
      const host = createServer((_request, response) => response.end('ok'));
      await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
      const allowedPort = (host.address() as AddressInfo).port;
      try {
        const seen = async (audit: 'all' | 'refused') => {
          const entries: { level: string; msg?: string | undefined; obj: object }[] = [];
          const record =
            (level: string) =>
            (obj: object, msg?: string): void =>
              void entries.push({ level, obj, msg });
          const log: Logger = {
            debug: record('debug'),
            info: record('info'),
            warn: record('warn'),
            error: record('error'),
            child: () => log,
          };
          const profile = {
            label: `audit-${audit}`,
            bwrap: engine.path,
            scratchDir: `/tmp/aperture-sandboxed-audit-${process.pid}-${audit}`,
            writable: [],
            deny: [],
            network: { mode: 'allow' as const, allow: [`127.0.0.1:${allowedPort}`] },
            audit,
          };
          // One request allowed, one to a port the list does not name (through the proxy).
          const script = `
            const http = require('node:http');
            const proxy = new URL(process.env.HTTP_PROXY);
            const get = (port) => new Promise((resolve) => {
              const target = '127.0.0.1:' + port;
              http.get({ host: proxy.hostname, port: proxy.port, path: 'http://' + target + '/', headers: { host: target } },
                (r) => { r.resume(); resolve(r.statusCode); }).on('error', () => resolve('error'));
            });
            Promise.all([get(${allowedPort}), get(${allowedPort + 1})]).then((s) => console.log(s.join(' ')));`;
          const start = await sandboxedStart(
            { kind: 'sandboxed', profile },
            { command: process.execPath, args: ['-e', script], env: {} },
            log,
          );
          const child = spawn(start.command as string, [...(start.args ?? [])], {
            env: { ...start.env },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
          });
          await new Promise((resolve) => child.once('close', resolve));
          await start.release?.();
          return { out: out.trim(), entries };
        };
        const all = await seen('all');
        expect(all.out).toBe('200 403');
        const allowedLine = all.entries.find((e) => e.msg === 'sandbox allowed a connection');
        expect(allowedLine?.level).toBe('info');
        expect(allowedLine?.obj).toMatchObject({ server: 'audit-all', host: `127.0.0.1:${allowedPort}` });
        expect(all.entries.filter((e) => e.msg === 'sandbox refused a connection')).toHaveLength(1);

        const refused = await seen('refused');
        expect(refused.out).toBe('200 403');
        expect(refused.entries.some((e) => e.msg === 'sandbox allowed a connection')).toBe(false);
        const refusedLine = refused.entries.find((e) => e.msg === 'sandbox refused a connection');
        expect(refusedLine?.obj).toMatchObject({ host: `127.0.0.1:${allowedPort + 1}`, decision: 'refused' });
      } finally {
        await new Promise<void>((resolve) => (host as Server).close(() => resolve()));
      }
    },
    30_000,
  );
});
