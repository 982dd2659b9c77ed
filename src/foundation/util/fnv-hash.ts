/**
 * FNV-1a, 32 bits: a fast string hash, stable across runs and platforms — what hashed features
 * need (the hashing embedder's buckets, the poisoning model's committed weights).
 */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
