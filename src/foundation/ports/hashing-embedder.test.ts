import { describe, expect, it } from 'vitest';
import { runEmbedderContract } from './embedder.contract.js';
import { dot } from './embedder.js';
import { createHashingEmbedder } from './hashing-embedder.js';

runEmbedderContract('hashing', async () => createHashingEmbedder(), { semantic: false });

describe('hashing embedder', () => {
  it('brings texts together by shared words only, ignoring case and punctuation', async () => {
    const [a, b, c] = await createHashingEmbedder().embed([
      'Read FILE, now',
      'read a file',
      'weather in Paris',
    ]);
    expect(dot(a!, b!)).toBeGreaterThan(0.5);
    expect(Math.abs(dot(a!, c!))).toBeLessThan(0.3);
  });

  it('names its dimensions in the model', async () => {
    const embedder = createHashingEmbedder(32);
    expect(embedder.model).toBe('hashing-32');
    expect((await embedder.embed(['x']))[0]).toHaveLength(32);
  });
});
