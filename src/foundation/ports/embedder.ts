import { GatewayError } from '../model/gateway-error.js';

/**
 * The embedding port: turns texts into vectors for semantic search. Implementations live in
 * operations/embedding/ (a model shipped in npm, a local ONNX model, an OpenAI-compatible endpoint)
 * and are chosen by app/ from the config; discovery/ only sees this interface. Every
 * implementation runs through `runEmbedderContract` (`embedder.contract.ts`).
 */
export interface Embedder {
  /**
   * Names the model and whatever else changes its vectors (e.g. `use-lite`,
   * `openai:text-embedding-3-small`). Part of the embedding cache key: a different model never
   * reads another's vectors.
   */
  readonly model: string;
  /**
   * One vector per text, in the order given, all of one length, L2-normalised (so a dot product is
   * the cosine similarity). An empty list gives an empty list. Failures throw a GatewayError
   * (`backend_unavailable` when a remote model cannot be reached, `config_invalid` when the model
   * cannot be loaded). `signal` abandons the work.
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** Releases the model (worker threads, native sessions). Optional. */
  close?(): Promise<void>;
}

/** Throws `cancelled` when `signal` was aborted: embedders check it between batches. */
export function throwIfEmbeddingCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new GatewayError('cancelled', 'The embedding was cancelled', { cause: signal.reason });
  }
}

/** Scales `vector` to unit length in place (a zero vector stays zero) and returns it. */
export function normalizeVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/** Dot product of two vectors of one length (the cosine for normalised vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
