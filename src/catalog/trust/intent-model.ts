import type { Tool } from '../../foundation/model/tool.js';
import { fnv1a32 } from '../../foundation/util/fnv-hash.js';

/**
 * The learned second signal of the poisoning detector: a logistic regression over hashed word
 * unigrams, word bigrams and character 4-grams, scored sentence by sentence. Rules catch the
 * phrasings someone thought of; this scores the *intent* vocabulary around them ("forward a
 * copy", "no need to bring this up", "credentials … passed along"), so a reworded payload still
 * lands near what it was trained on. Weights come from `scripts/train-poisoning-model.ts`.
 */
export interface IntentModel {
  /** Number of hash buckets (a power of two). */
  buckets: number;
  bias: number;
  /** A sentence scoring at or above this flags the tool (chosen by the training script). */
  threshold: number;
  /** Sparse weights: bucket index → weight (buckets with weight ~0 are left out). */
  weights: Record<string, number>;
}

/** One piece of text a model reads, with where it came from. */
export interface TextSegment {
  field: string;
  text: string;
}

/**
 * The features of one sentence, as bucket indexes (repeats allowed: counts matter). Words and
 * word pairs only: character n-grams were tried and measured worse on held-out rounds (they learn
 * topic — "password", "token" — where word pairs learn intent — "no need", "forward a").
 */
export function sentenceFeatures(sentence: string, buckets: number): number[] {
  const words = sentence
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02BC]/g, "'")
    .match(/[\p{L}\p{N}][\p{L}\p{N}'_-]*|[~@/.$]/gu);
  if (!words) return [];
  const out: number[] = [];
  const mask = buckets - 1;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    out.push(fnv1a32(`w:${word}`) & mask);
    if (i > 0) out.push(fnv1a32(`b:${words[i - 1]}_${word}`) & mask);
  }
  return out;
}

/**
 * Sentences shorter than this (in words) score 0. Why: a poisoned tool's cover line ("Formats
 * JSON text.") is trained on as part of an attack, and a short line has too few words for the
 * rest to outweigh one learned from a cover; an instruction to the model takes more words.
 * (Short secret-shaped property names are the rules' job.)
 */
export const MIN_WORDS = 5;

/** The probability the model gives a sentence of being an attack instruction. */
export function scoreSentence(model: IntentModel, sentence: string): number {
  const features = sentenceFeatures(sentence, model.buckets);
  // One unigram per word, one bigram per word after the first.
  if ((features.length + 1) / 2 < MIN_WORDS) return 0;
  // Why divide by the square root of the count: a long sentence would otherwise win on length.
  const scale = 1 / Math.sqrt(features.length);
  let z = model.bias;
  for (const feature of features) z += (model.weights[feature] ?? 0) * scale;
  return 1 / (1 + Math.exp(-z));
}

/** Splits text into sentences (and lines): the unit the model scores. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;:])\s+|\n+/)
    .map((part) => part.trim())
    .filter((part) => /\p{L}/u.test(part));
}

/**
 * Every text of a tool a model reads, split into sentences: title, description, and the
 * description, default and enum strings and property names of its schemas.
 */
export function toolSegments(
  tool: Pick<Tool, 'description' | 'title' | 'inputSchema' | 'outputSchema'>,
  maxChars = Number.POSITIVE_INFINITY,
): TextSegment[] {
  const segments: TextSegment[] = [];
  // Why a budget: a tool's texts are the server's to choose; past it the detector has flagged the
  // tool as too long already, and reading on would only cost time.
  let remaining = maxChars;
  const add = (text: string, field: string) => {
    if (remaining <= 0) return;
    const read = text.length > remaining ? text.slice(0, remaining) : text;
    remaining -= read.length;
    for (const sentence of splitSentences(read)) segments.push({ field, text: sentence });
  };
  add(tool.description, 'description');
  if (tool.title !== undefined) add(tool.title, 'title');
  schemaStrings(tool.inputSchema, 'inputSchema', add, 0);
  if (tool.outputSchema !== undefined) schemaStrings(tool.outputSchema, 'outputSchema', add, 0);
  return segments;
}

function schemaStrings(
  schema: unknown,
  path: string,
  add: (text: string, field: string) => void,
  depth: number,
): void {
  if (depth > 32 || schema === null || typeof schema !== 'object') {
    if (typeof schema === 'string') add(schema, path);
    return;
  }
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) schemaStrings(item, `${path}[${index}]`, add, depth + 1);
    return;
  }
  const record = schema as Record<string, unknown>;
  const properties = record.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const name of Object.keys(properties))
      add(name.replace(/[_-]+/g, ' '), `${path}.properties.${name}`);
  }
  for (const [key, value] of Object.entries(record)) {
    // Types, patterns and references are not prose.
    if (key === 'type' || key === 'pattern' || key === 'format' || key.startsWith('$')) continue;
    schemaStrings(value, `${path}.${key}`, add, depth + 1);
  }
}
