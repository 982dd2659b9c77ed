import { type Embedder, normalizeVector } from './embedder.js';

/** FNV-1a, 32 bits: a fast, stable string hash. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

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
          const h = hash(word);
          vector[h % dimensions]! += h & 0x80000000 ? -1 : 1;
        }
        return normalizeVector(vector);
      });
    },
  };
}
