import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RoundKeyStore } from './round-key.js';

/**
 * What every {@link RoundKeyStore} must do. `replicas()` gives two fresh stores over one shared
 * place (two replicas of one deployment, nothing agreed yet).
 */
export function describeRoundKeyContract(
  name: string,
  replicas: () => Promise<[RoundKeyStore, RoundKeyStore]> | [RoundKeyStore, RoundKeyStore],
): void {
  describe(`RoundKeyStore contract: ${name}`, () => {
    it('agrees on one of the proposals when replicas propose at once, and keeps it', async () => {
      const [a, b] = await replicas();
      const [pa, pb] = [randomBytes(32), randomBytes(32)];
      const [ka, kb] = await Promise.all([a.agree(pa), b.agree(pb)]);
      expect(Buffer.from(ka).equals(Buffer.from(kb))).toBe(true);
      expect([pa.toString('hex'), pb.toString('hex')]).toContain(Buffer.from(ka).toString('hex'));
      // A later proposal (a replica started since) gets the agreed key back.
      const later = await b.agree(randomBytes(32));
      expect(Buffer.from(later).equals(Buffer.from(ka))).toBe(true);
    });

    it('gives back the bytes proposed, all 32 of them', async () => {
      const [a] = await replicas();
      const proposal = randomBytes(32);
      const key = await a.agree(proposal);
      expect(key.byteLength).toBe(32);
      expect(Buffer.from(key).equals(proposal)).toBe(true);
    });
  });
}
