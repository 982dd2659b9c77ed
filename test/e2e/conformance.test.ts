import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startListeningFixture } from '../support/listening-fixture.js';
import { failedScored } from './conformance-suite.js';
import { ROOT, startHttpGateway } from './gateway-process.js';

const CONFIG_2025_FIXTURE = path.join(ROOT, 'test/fixtures/conformance/gateway.yaml');
const MODERN_FIXTURE = path.join(ROOT, 'test/fixtures/conformance/modern-conformance-server.mjs');

/**
 * Scenarios a 2025-era server behind the gateway cannot meet: their input keys are chosen by the
 * server, and only a 2026-era server chooses them (the translation is covered by the integration
 * tests instead).
 */
const SERVER_CHOSEN_INPUTS = /^input-required-result-/;

describe('MCP conformance through the gateway (suite 0.2.0-alpha.12, flat exposure)', () => {
  it('with a 2025-era server behind it: every scored scenario of 2025-11-25 and of 2026-07-28 but the server-chosen input rounds', async () => {
    await using gateway = await startHttpGateway(['--config', CONFIG_2025_FIXTURE]);
    // The suite insists on a localhost URL (its DNS-rebinding scenario sends Host: localhost:PORT).
    const url = `${gateway.url.replace('127.0.0.1', 'localhost')}/mcp`;

    const legacy = await failedScored(url, '2025-11-25');
    expect(legacy.scored).toContain('server-initialize');
    expect(legacy.scored).toContain('dns-rebinding-protection');
    expect(legacy.failed).toEqual([]);

    const modern = await failedScored(url, '2026-07-28');
    for (const name of [
      'server-stateless',
      'tools-list',
      'tools-call-simple-text',
      'caching',
      'dns-rebinding-protection',
    ]) {
      expect(modern.scored).toContain(name);
    }
    expect(modern.failed.filter((name) => !SERVER_CHOSEN_INPUTS.test(name))).toEqual([]);
    expect(gateway.stderr()).not.toMatch(/"level":50/);
  }, 600_000);

  it('with a 2026-era server behind it: every scored scenario of 2025-11-25 and of 2026-07-28, the server-chosen input rounds included', async () => {
    const fixture = await startListeningFixture(MODERN_FIXTURE);
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-conformance-'));
    try {
      const config = path.join(dir, 'aperture.yaml');
      await writeFile(
        config,
        JSON.stringify({
          servers: { conformance: { url: fixture.url, prefix: false } },
          tools: { builtin: false },
          exposure: 'flat',
        }),
      );
      await using gateway = await startHttpGateway(['--config', config]);
      const url = `${gateway.url.replace('127.0.0.1', 'localhost')}/mcp`;

      // A 2025 client: the server's input rounds become the requests it knows, answered by it.
      const legacy = await failedScored(url, '2025-11-25');
      expect(legacy.scored).toContain('tools-call-elicitation');
      expect(legacy.scored).toContain('tools-call-sampling');
      expect(legacy.failed).toEqual([]);

      // A 2026 client: the server's rounds (its keys, its state) pass through the gateway.
      const modern = await failedScored(url, '2026-07-28');
      for (const name of [
        'server-stateless',
        'caching',
        'input-required-result-basic-elicitation',
        'input-required-result-multiple-input-requests',
        'input-required-result-multi-round',
        'input-required-result-request-state',
        'input-required-result-tampered-state',
        'input-required-result-capability-check',
        'input-required-result-non-tool-request',
      ]) {
        expect(modern.scored).toContain(name);
      }
      expect(modern.failed).toEqual([]);
      expect(gateway.stderr()).not.toMatch(/"level":50/);
    } finally {
      fixture.child.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
