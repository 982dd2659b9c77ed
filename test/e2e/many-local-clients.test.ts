import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  type DisposableClient,
  type RunningGateway,
  startHttpGateway,
} from './gateway-process.js';

// Regression ("Hardening, round two"): on the default loopback bind, the per-address connection
// cap reset the local user's own clients — 50 SDK clients × 40 calls lost 108–188 calls as
// `fetch failed`. Every peer of a loopback bind is local: only the global cap applies there.
describe('many local clients of the default gateway', () => {
  let dir: string;
  let gateway: RunningGateway;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-many-'));
    // No config: the default gateway (loopback, no auth), its state in a directory of its own.
    gateway = await startHttpGateway(['--state-dir', dir, '--no-watch'], dir);
  });
  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('50 official SDK clients × 40 calls lose none', async () => {
    const clients: DisposableClient[] = await Promise.all(
      Array.from({ length: 50 }, () => connectHttp(gateway.url)),
    );
    try {
      const outcomes = await Promise.all(
        clients.map(async (client) => {
          let failed = 0;
          for (let i = 0; i < 40; i++) {
            await client.callTool({ name: 'list_namespaces', arguments: {} }).then(
              (result) => {
                if (result.isError) failed++;
              },
              () => failed++,
            );
          }
          return failed;
        }),
      );
      expect(outcomes.reduce((a, b) => a + b, 0)).toBe(0);
    } finally {
      await Promise.all(clients.map((client) => client[Symbol.asyncDispose]()));
    }
  }, 120_000);
});
