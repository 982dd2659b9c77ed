import { describe, expect, it } from 'vitest';
import type { SessionDirectory, SessionRecord } from './session-directory.js';

/** A directory under test and the way to let time pass for it (a fake clock or a real wait). */
export interface DirectoryUnderTest {
  directory: SessionDirectory;
  elapse(ms: number): Promise<void>;
}

const RECORD: SessionRecord = {
  owner: '["api_key","alice","*"]',
  endpoint: '/mcp/dev',
  toolset: 'dev',
  json: false,
  protocolVersion: '2025-06-18',
  clientInfo: { name: 'test-client', version: '1.0.0' },
  capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
  logLevel: 'warning',
  subscriptions: ['file:///a.txt'],
};

/**
 * What every {@link SessionDirectory} must do. `create(ttlMs)` gives a fresh, empty directory
 * whose records live `ttlMs` after their last put or touch; the TTL cases use `ttlMs` = 1000 and
 * let 600 ms pass at a time, so a real store can run them with real waits.
 */
export function describeSessionDirectoryContract(
  name: string,
  create: (ttlMs: number) => Promise<DirectoryUnderTest> | DirectoryUnderTest,
): void {
  describe(`SessionDirectory contract: ${name}`, () => {
    it('gives back what was put, field for field, and nothing for an unknown id', async () => {
      const { directory } = await create(60_000);
      await directory.put('s1', RECORD);
      expect(await directory.get('s1')).toEqual(RECORD);
      expect(await directory.touch('s1')).toEqual(RECORD);
      expect(await directory.get('s2')).toBeUndefined();
      expect(await directory.touch('s2')).toBeUndefined();
    });

    it('replaces a record on put (a later log level, a new subscription)', async () => {
      const { directory } = await create(60_000);
      await directory.put('s1', RECORD);
      const changed = { ...RECORD, logLevel: 'debug', subscriptions: ['file:///a.txt', 'file:///b.txt'] };
      await directory.put('s1', changed);
      expect(await directory.get('s1')).toEqual(changed);
    });

    it('does not share the stored object with callers', async () => {
      const { directory } = await create(60_000);
      const record = structuredClone(RECORD);
      await directory.put('s1', record);
      record.owner = 'mallory';
      const got = await directory.get('s1');
      if (got) got.endpoint = '/elsewhere';
      expect(await directory.get('s1')).toEqual(RECORD);
    });

    it('forgets a deleted session, and says whether it knew it', async () => {
      const { directory } = await create(60_000);
      await directory.put('s1', RECORD);
      expect(await directory.delete('s1')).toBe(true);
      expect(await directory.get('s1')).toBeUndefined();
      expect(await directory.touch('s1')).toBeUndefined();
      expect(await directory.delete('s1')).toBe(false);
    });

    it('expires a record its TTL after the last put; get does not keep it alive', async () => {
      const { directory, elapse } = await create(1000);
      await directory.put('s1', RECORD);
      await elapse(600);
      expect(await directory.get('s1')).toEqual(RECORD);
      await elapse(600);
      expect(await directory.get('s1')).toBeUndefined();
      expect(await directory.touch('s1')).toBeUndefined();
    });

    it('slides the TTL on touch', async () => {
      const { directory, elapse } = await create(1000);
      await directory.put('s1', RECORD);
      await elapse(600);
      expect(await directory.touch('s1')).toEqual(RECORD);
      await elapse(600);
      // 1200 ms after the put, 600 after the touch: still there.
      expect(await directory.get('s1')).toEqual(RECORD);
      await elapse(600);
      expect(await directory.get('s1')).toBeUndefined();
    });
  });
}
