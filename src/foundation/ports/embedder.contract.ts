import { describe, expect, it } from 'vitest';
import { dot, type Embedder } from './embedder.js';

export interface EmbedderContractOptions {
  /**
   * Whether the model captures meaning (a real model), so that a paraphrase lands closer than an
   * unrelated sentence. False for a toy model whose vectors only follow the words.
   */
  semantic: boolean;
  /** Per-test timeout for slow models. Default 30 s. */
  timeoutMs?: number;
}

/**
 * The behaviour every {@link Embedder} must have. Call it from a `*.test.ts` file with a factory
 * returning a ready embedder (created once for the whole suite, closed after it).
 */
export function runEmbedderContract(
  name: string,
  factory: () => Promise<Embedder>,
  options: EmbedderContractOptions,
): void {
  const timeout = options.timeoutMs ?? 30_000;
  describe(`Embedder contract: ${name}`, () => {
    let embedder: Embedder;
    const ready = async () => {
      embedder ??= await factory();
      return embedder;
    };

    it(
      'names its model',
      async () => {
        const e = await ready();
        expect(typeof e.model).toBe('string');
        expect(e.model.length).toBeGreaterThan(0);
      },
      timeout,
    );

    it(
      'gives one unit vector per text, all of one length, in order',
      async () => {
        const e = await ready();
        const texts = ['read a file from disk', 'send an email to a colleague', 'weather in Paris'];
        const vectors = await e.embed(texts);
        expect(vectors).toHaveLength(3);
        const length = vectors[0]!.length;
        expect(length).toBeGreaterThan(1);
        for (const vector of vectors) {
          expect(vector).toBeInstanceOf(Float32Array);
          expect(vector.length).toBe(length);
          expect(vector.every(Number.isFinite)).toBe(true);
          expect(dot(vector, vector)).toBeCloseTo(1, 3);
        }
        // Order: each text alone gives the vector it got in the batch.
        const single = await e.embed([texts[1]!]);
        expect(dot(single[0]!, vectors[1]!)).toBeCloseTo(1, 3);
        expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.999);
      },
      timeout,
    );

    it(
      'is deterministic',
      async () => {
        const e = await ready();
        const [a] = await e.embed(['list open pull requests']);
        const [b] = await e.embed(['list open pull requests']);
        expect(dot(a!, b!)).toBeCloseTo(1, 4);
      },
      timeout,
    );

    it(
      'gives nothing for nothing, and embeds empty and long texts',
      async () => {
        const e = await ready();
        expect(await e.embed([])).toEqual([]);
        const long = 'search the web for recent news about '.repeat(400);
        const vectors = await e.embed(['', long]);
        expect(vectors).toHaveLength(2);
        expect(vectors[1]!.every(Number.isFinite)).toBe(true);
      },
      timeout,
    );

    if (options.semantic) {
      it(
        'places a paraphrase closer than an unrelated sentence',
        async () => {
          const e = await ready();
          const [query, paraphrase, unrelated] = await e.embed([
            'open a text file and return its contents',
            'read a file from the local disk',
            'current weather forecast for a city',
          ]);
          expect(dot(query!, paraphrase!)).toBeGreaterThan(dot(query!, unrelated!));
        },
        timeout,
      );
    }

    it(
      'closes',
      async () => {
        const e = await ready();
        await e.close?.();
      },
      timeout,
    );
  });
}
