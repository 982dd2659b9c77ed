import { fnv1a32 } from '../util/fnv-hash.js';
import { type Embedder, normalizeVector } from './embedder.js';

/**
 * The reference {@link Embedder}: a bag of lower-cased words hashed into `dimensions` buckets
 * (signed, to cancel collisions out on average). It knows no meaning — only shared words bring
 * two texts together — but it is instant, deterministic and dependency-free: the stand-in for a
 * real model in tests, and the embedder of last resort.
 */
export function createHashingEmbedder(dimensions = 256): Embedder {
  return {
    model: `hashing-${dimensions}`,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(dimensions);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const h = fnv1a32(word);
          vector[h % dimensions]! += h & 0x80000000 ? -1 : 1;
        }
        return normalizeVector(vector);
      });
    },
  };
}
