import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApertureConfig } from '../../config/config-schema.js';
import { parseConfigValue } from '../../config/load-config.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import { growingMasker } from '../../operations/secrets/growing-masker.js';
import { approvals } from './approvals.js';
import { audit } from './audit.js';
import { GatewayParts } from './feature.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-feature-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The parts the two features need: no shared state, a state store in memory, the config given. */
function parts(raw: Record<string, unknown>, secrets: string[] = []) {
  let { config } = parseConfigValue(raw);
  const made = new GatewayParts({
    log: silentLogger,
    loaded: () => ({ config, baseDir: dir, warnings: [] }),
    maskSecrets: growingMasker(secrets),
    calls: new InFlightCalls(),
    validator: new SchemaValidator(),
    reload: () => Promise.reject(new Error('no reload here')),
    readiness: () => ({ ready: true }),
    options: { http: false },
  });
  made.provide('shared', undefined);
  made.provide('searchBacking', { state: new MemoryStateStore() } as never);
  return { made, config, set: (next: ApertureConfig) => (config = next) };
}

describe('the audit and approvals features', () => {
  it('write the trail to audit.path, masking secret values, and ask for a restart when the path changes', async () => {
    const path = join(dir, 'a', 'trail.jsonl');
    const { made, config } = parts({ state: { driver: 'sqlite', dir }, audit: { path } }, ['s3cret-value']);
    const feature = await audit(config, made);
    await made
      .need('auditTrail')
      .record({ kind: 'admin.reload', actor: 'apikey:root', details: { note: 'has s3cret-value' } });
    const [line] = readFileSync(path, 'utf8').trim().split('\n');
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      seq: 1,
      kind: 'admin.reload',
      details: { note: 'has [REDACTED]' },
    });
    expect(line).not.toContain('s3cret-value');
    const moved = parseConfigValue({ audit: { path: join(dir, 'b.jsonl') } });
    expect(await feature.reload?.audit?.({ ...moved, baseDir: dir, warnings: [] }, {} as never)).toBe(
      'restart',
    );
    const same = parseConfigValue({ audit: { path, calls: true } });
    expect(
      await feature.reload?.audit?.({ ...same, baseDir: dir, warnings: [] }, {} as never),
    ).toBeUndefined();
    await feature.close?.();
  });

  it('keep the trail in memory with state.driver memory and no audit.path; record calls only with audit.calls', async () => {
    const { made, config, set } = parts({ state: { driver: 'memory' } });
    const feature = await audit(config, made);
    const middleware = feature.middleware?.activity;
    expect(middleware).toBeDefined();
    const call = {
      tool: { id: 'x:y' },
      args: {},
      ctx: { caller: { identity: 'cli' }, callId: 'c' } as ExecutionContext,
    } as never;
    await middleware?.(call, async () => ({ content: [] }));
    expect(await made.need('auditTrail').recent(10)).toEqual([]);
    set(parseConfigValue({ state: { driver: 'memory' }, audit: { calls: true } }).config);
    await middleware?.(call, async () => ({ content: [] }));
    expect(await made.need('auditTrail').recent(10)).toMatchObject([
      { kind: 'call', actor: 'cli', tool: 'x:y', decision: 'ok' },
    ]);
  });

  it('make the approval desk read approvals.timeoutMs at each held call, and hand it to the policy enforcement', async () => {
    const { made, config } = parts({ state: { driver: 'memory' }, approvals: { timeoutMs: 30 } });
    await audit(config, made);
    const feature = await approvals(config, made);
    const enforcement = { gate: undefined, trail: undefined } as { gate: unknown; trail: unknown };
    made.provide('policyEnforcement', enforcement as never);
    await feature.start?.();
    expect(enforcement.gate).toBe(made.need('approvalGate'));
    expect(enforcement.trail).toBe(made.need('auditTrail'));
    const held = made.need('approvalGate').approve(
      { toolId: 'x:y', caller: { identity: 'cli' }, surface: 'cli', args: {}, rule: 'r' },
      {
        signal: new AbortController().signal,
        callId: 'c',
        caller: { identity: 'cli' },
        progress: () => {},
        log: silentLogger,
      },
    );
    await expect(held).rejects.toMatchObject({ code: 'approval_timeout' });
    expect(await feature.reload?.approvals?.({} as never, {} as never)).toBeUndefined();
    await feature.close?.();
  });
});
