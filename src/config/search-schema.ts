import { z } from 'zod';
import { BM25_DEFAULTS, type Bm25Field } from '../discovery/bm25-defaults.js';

/*
 * The `search` section of the config. The BM25F defaults are the tuned values of
 * `discovery/bm25-defaults.ts` (docs/SEARCH.md says how they were tuned), so the parsed config is
 * complete and equal to what the index would use anyway.
 */

const FIELDS = Object.keys(BM25_DEFAULTS.boosts) as Bm25Field[];

/** A finite number in [min, max]; a numeric string (`${env:…}`) is read as a number. */
function decimal(min: number, max: number) {
  return z.preprocess(
    (value) =>
      typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
        ? Number(value)
        : value,
    z.number().min(min).max(max),
  );
}

/** One number per field, each defaulting to `defaults[field]`; a bare number sets every field. */
function perField(
  defaults: Readonly<Record<Bm25Field, number>>,
  min: number,
  max: number,
  shorthand: boolean,
) {
  const shape = Object.fromEntries(
    FIELDS.map((field) => [field, decimal(min, max).default(defaults[field])]),
  ) as Record<Bm25Field, z.ZodDefault<ReturnType<typeof decimal>>>;
  const object = z.strictObject(shape);
  const spread = (value: unknown) =>
    typeof value === 'number' ||
    (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
      ? Object.fromEntries(FIELDS.map((field) => [field, value]))
      : value;
  return (shorthand ? z.preprocess(spread, object) : object).prefault({});
}

const bm25Section = z
  .strictObject({
    /** Term-frequency saturation: how fast repeating a word stops adding to the score. */
    k1: decimal(0, 100).default(BM25_DEFAULTS.k1),
    /** Length normalisation per field, 0 (none) to 1 (full); a single number sets every field. */
    b: perField(BM25_DEFAULTS.b, 0, 1, true),
    /** How much a word counts in each field; 0 leaves the field out of the index. */
    boosts: perField(BM25_DEFAULTS.boosts, 0, 1000, false),
  })
  .prefault({});

export const searchSection = z
  .strictObject({
    strategy: z.enum(['lexical', 'bm25', 'semantic', 'hybrid']).default('bm25'),
    /** BM25F parameters (strategy `bm25`); the fields are those of `discovery/tool-fields.ts`. */
    bm25: bm25Section,
  })
  .prefault({});
