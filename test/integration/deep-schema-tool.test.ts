import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import type { Logger } from '../../src/foundation/ports/logger.js';
import { faultyServer } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/** A logger that keeps every warning. */
function warnings(records: Record<string, unknown>[]): Logger {
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (obj: object, msg?: string) => void records.push({ ...obj, msg }),
    error: () => {},
    child: () => logger,
  };
  return logger;
}

// Regression ("Hardening, round two"): one tool with a 3,000-level-deep schema overflowed the
// stack and its whole server failed as `internal`; only that tool may be refused.
describe('a downstream tool with a 2,000-level (4,000 JSON levels) schema', () => {
  let gateway: Gateway;
  const records: Record<string, unknown>[] = [];
  beforeAll(async () => {
    gateway = await gatewayFrom(
      { tools: { builtin: false }, servers: { f: faultyServer({ FAULTY_DEEP_SCHEMA: '2000' }) } },
      { log: warnings(records) },
    );
    await gateway.whenReady();
  });
  afterAll(() => gateway.close());

  it('is refused alone, with a warning naming it; the server’s other tools serve', async () => {
    const ids = gateway.catalog.tools().map((t) => t.id);
    expect(ids).toContain('f:echo');
    expect(ids).not.toContain('f:deep');
    const result = await gateway.scope.run('f:echo', { text: 'ok' }, { caller: { identity: 't' } });
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    const warning = records.find((r) => Array.isArray(r.refused));
    expect(warning?.refused).toEqual([
      expect.stringMatching(/^f:deep: \/inputSchema\/.*nests deeper than 256 levels/),
    ]);
    expect(gateway.downstream.find((s) => s.name === 'f')?.snapshot().state).toBe('connected');
  });
});
