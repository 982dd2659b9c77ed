import { describe, expect, it } from 'vitest';
import { verifyAuditLines } from './audit-chain.js';
import { GENESIS_HASH, lineHash, parseAuditLine, type ReadableAuditTrail } from './audit-line.js';

/** One storage (a file, a Redis prefix, an array) and the trails opened on it. */
export interface AuditTrailSetup {
  /** Opens a trail on the storage: a second one continues the chain, as a restart or another replica. */
  open(): Promise<ReadableAuditTrail>;
  /** Every line's text in the storage, in order. */
  lines(): Promise<string[]>;
}

/** Makes a fresh, empty storage. */
export type AuditTrailFactory = () => Promise<AuditTrailSetup>;

/**
 * The behaviour every audit trail must have (`AuditTrail`, src/foundation/ports/audit-trail.ts):
 * call it from a `*.test.ts` file with a factory giving a fresh storage.
 */
export function runAuditTrailContract(
  label: string,
  factory: AuditTrailFactory,
  options: {
    /** Trails on one storage may write at the same time (replicas on one Redis); a file has one writer. */
    sharedWriters?: boolean;
  } = {},
): void {
  describe(`AuditTrail contract: ${label}`, () => {
    it('appends one line per event, in order, each carrying the SHA-256 of the line before', async () => {
      const setup = await factory();
      const trail = await setup.open();
      await trail.record({
        kind: 'policy.deny',
        actor: 'apikey:ka',
        tool: 'demo:write',
        rule: 'r1',
        decision: 'deny',
      });
      await trail.record({ kind: 'admin.reload', actor: 'apikey:root', details: { changed: ['auth'] } });
      await trail.close();
      const lines = await setup.lines();
      expect(lines).toHaveLength(2);
      const [first, second] = lines.map((text) => parseAuditLine(text));
      expect(first).toMatchObject({
        seq: 1,
        prev: GENESIS_HASH,
        kind: 'policy.deny',
        actor: 'apikey:ka',
        tool: 'demo:write',
        rule: 'r1',
        decision: 'deny',
      });
      expect(second).toMatchObject({
        seq: 2,
        prev: lineHash(lines[0] ?? ''),
        kind: 'admin.reload',
        details: { changed: ['auth'] },
      });
      expect(Number.isNaN(Date.parse(first?.time ?? ''))).toBe(false);
      expect(verifyAuditLines(lines)).toMatchObject({ ok: true, lines: 2, head: lineHash(lines[1] ?? '') });
    });

    it('keeps one unbroken chain under concurrent records', async () => {
      const setup = await factory();
      const trail = await setup.open();
      await Promise.all(Array.from({ length: 25 }, (_, i) => trail.record({ kind: 'call', actor: `a${i}` })));
      await trail.close();
      const lines = await setup.lines();
      expect(lines).toHaveLength(25);
      expect(verifyAuditLines(lines)).toMatchObject({ ok: true, lines: 25 });
      // `record` resolves in call order: the lines are in the order the events were recorded.
      expect(lines.map((text) => parseAuditLine(text)?.actor)).toEqual(
        Array.from({ length: 25 }, (_, i) => `a${i}`),
      );
    });

    it('continues the chain of a trail that wrote there before (a restart)', async () => {
      const setup = await factory();
      const first = await setup.open();
      await first.record({ kind: 'call', actor: 'one' });
      await first.close();
      const second = await setup.open();
      await second.record({ kind: 'call', actor: 'two' });
      await second.close();
      const lines = await setup.lines();
      expect(lines.map((text) => parseAuditLine(text)?.seq)).toEqual([1, 2]);
      expect(verifyAuditLines(lines)).toMatchObject({ ok: true, lines: 2 });
    });

    it.skipIf(!options.sharedWriters)(
      'keeps one chain while trails on the same storage write at once (replicas)',
      async () => {
        const setup = await factory();
        const first = await setup.open();
        await first.record({ kind: 'call', actor: 'one' });
        const second = await setup.open();
        await second.record({ kind: 'call', actor: 'two' });
        await Promise.all([
          ...Array.from({ length: 10 }, () => first.record({ kind: 'call', actor: 'one' })),
          ...Array.from({ length: 10 }, () => second.record({ kind: 'call', actor: 'two' })),
        ]);
        await first.close();
        await second.close();
        const lines = await setup.lines();
        expect(lines).toHaveLength(22);
        expect(verifyAuditLines(lines)).toMatchObject({ ok: true, lines: 22 });
      },
      20_000,
    );

    it('reads back the last lines, oldest first', async () => {
      const setup = await factory();
      const trail = await setup.open();
      for (let i = 1; i <= 5; i++) await trail.record({ kind: 'call', actor: `a${i}` });
      expect((await trail.recent(3)).map((line) => line.actor)).toEqual(['a3', 'a4', 'a5']);
      expect((await trail.recent(50)).map((line) => line.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(await trail.recent(0)).toEqual([]);
      await trail.close();
    });

    it('leaves out what an event does not have', async () => {
      const setup = await factory();
      const trail = await setup.open();
      await trail.record({ kind: 'admin.login', actor: 'cli' });
      await trail.close();
      const [text] = await setup.lines();
      expect(Object.keys(JSON.parse(text ?? '{}'))).toEqual(['seq', 'time', 'prev', 'kind', 'actor']);
    });
  });
}
