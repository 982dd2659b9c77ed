import type { ToolFields } from './tool-fields.js';

/** A searchable field of a tool (see {@link ToolFields}). */
export type Bm25Field = keyof ToolFields;

/** One number per field: boosts, or length-normalisation strengths. */
export type Bm25FieldValues = Record<Bm25Field, number>;

/**
 * The defaults of the BM25F ranking, tuned on the ToolLens training queries only
 * (the removed `bench/tuning/search-tune.ts`; the `learned` field by the removed `bench/tuning/search-learn-tune.ts`, learning from
 * one half of them and measuring the other; figures in docs/SEARCH.md). The config's `search.bm25` section
 * defaults to these. Kept free of imports so that the config schema can use them cheaply.
 */
export const BM25_DEFAULTS: Readonly<{
  k1: number;
  b: Readonly<Bm25FieldValues>;
  boosts: Readonly<Bm25FieldValues>;
}> = Object.freeze({
  k1: 1.5,
  b: Object.freeze({
    name: 0.4,
    namespace: 1,
    title: 0.75,
    description: 0.4,
    tags: 0.75,
    paramNames: 0.25,
    paramDescriptions: 0.25,
    enumValues: 0.75,
    learned: 0.75,
  }),
  boosts: Object.freeze({
    name: 1,
    namespace: 1.5,
    title: 2,
    description: 1,
    tags: 1,
    paramNames: 1,
    paramDescriptions: 1,
    enumValues: 0.5,
    learned: 0.5,
  }),
});
