/**
 * The poisoning detector measured honestly (scripts/train-poisoning-model.ts): each round of the
 * malicious corpus scored by a model fitted without it, and each of the 32 real servers' catalogs
 * scored by a model fitted without that server — what a catalog nobody trained on gets. Fits the
 * model 43 times (about half a minute). The figures are docs/SECURITY.md's.
 */
import { describe, expect, it } from 'vitest';
import { crossValidate } from '../scripts/train-poisoning-model.js';

describe('the poisoning detector, cross-validated', () => {
  it('flags no real server tool held out of training, no held-out hard negative, and at least 124 of 145 attacks (the rules as committed, the model held out)', () => {
    const cv = crossValidate();
    console.info(
      `cross validation: ${cv.flagged} of ${cv.malicious} attacks; real tools held out: ${cv.realFlagged.length} of ${cv.realTools} flagged; hard negatives held out: ${cv.hardNegativesFlagged.length} flagged`,
    );
    expect(cv.realServers).toBeGreaterThanOrEqual(30);
    expect(cv.realFlagged).toEqual([]);
    expect(cv.hardNegativesFlagged).toEqual([]);
    expect(cv.malicious).toBe(145);
    expect(cv.flagged).toBeGreaterThanOrEqual(124);
  }, 300_000);
});
