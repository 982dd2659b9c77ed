import { z } from 'zod';
import { isValidNamespace } from '../model/tool-id.js';

/*
 * The small value schemas every config section is built from, each with one message. They sit in
 * foundation/ because the config schema (config/) and the source drivers' entry schemas (sources/)
 * are both built from them. Numbers and
 * booleans also accept their string spelling ("8080", "true"): `${env:PORT}` is interpolated
 * before validation and always yields a string.
 */

/** What a namespace may be, in words (the rule is `isValidNamespace`). */
export const NAMESPACE_RULE =
  'letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters';

/** A short description of a config value for messages: `"abc"`, `number 3`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return `${typeof value} ${String(value)}`;
}

/** `"true"` / `"false"` as booleans; anything else unchanged (for the schema to judge). */
export function coerceBool(value: unknown): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/** Env values and headers are strings on the wire; `PORT: 3000` in YAML means "3000". */
export function coerceScalarToString(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

/**
 * An integer in [min, max]; a string of digits counts. One schema per range, shared: zod schemas
 * are immutable (`.default()`, `.optional()` return new ones), and the config schema asks for the
 * same few ranges some 80 times as its module loads, before a stdio client's first answer.
 */
export function int(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  const key = `${min}:${max}`;
  let schema = INT_SCHEMAS.get(key);
  if (schema === undefined) {
    schema = intSchema(min, max);
    INT_SCHEMAS.set(key, schema);
  }
  return schema;
}

const INT_SCHEMAS = new Map<string, ReturnType<typeof intSchema>>();

function intSchema(min: number, max: number) {
  return z.preprocess((value, ctx) => {
    if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
    // zod would say "expected number" for "abc"; an integer is what is wanted.
    if (value !== undefined && typeof value !== 'number') {
      ctx.addIssue({ code: 'custom', message: `expected an integer, got ${describeValue(value)}` });
    }
    return value;
  }, z.number().int().min(min).max(max));
}

/** A finite number in [min, max]; a numeric string counts. */
export function decimal(min: number, max: number) {
  return z.preprocess(
    (value) => (isNumericString(value) ? Number(value) : value),
    z.number().min(min).max(max),
  );
}

/** True for a string that reads as a number (`"0.75"`, `" 3 "`), as {@link decimal} accepts. */
export function isNumericString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value));
}

const BOOL = z.preprocess(coerceBool, z.boolean());
const NON_EMPTY_STRING = z.string().min(1, { error: 'must not be empty' });

/** `true` / `false`, or their string spelling. One schema, shared (see {@link int}). */
export const bool = () => BOOL;

/** Any string but the empty one. One schema, shared (see {@link int}). */
export const nonEmptyString = () => NON_EMPTY_STRING;

/** A map of strings (env, headers); numbers and booleans are taken as their text. */
export const stringMap = () => z.record(z.string(), z.preprocess(coerceScalarToString, z.string()));

/** Any object, its values unchecked. */
export const looseObject = () => z.record(z.string(), z.unknown());

/** A tool namespace (docs/DESIGN.md §3), as a value or as a record key. */
export const namespaceString = () =>
  z.string().refine(isValidNamespace, { error: `must be a valid namespace (${NAMESPACE_RULE})` });

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A config string that must be an absolute http(s) URL. */
export const httpUrl = () => z.string().refine(isHttpUrl, { error: 'must be an http:// or https:// URL' });

/**
 * The namespace a server key stands for: the key itself when valid, else the key with every run of
 * other characters (spaces, slashes, `@`) turned into one `-` ("GitHub Tools" → "GitHub-Tools",
 * "@acme/db" → "acme-db"), cut to 64 characters; undefined when nothing usable is left.
 */
export function normaliseNamespace(key: string): string | undefined {
  if (isValidNamespace(key)) return key;
  const normalised = key
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '');
  return isValidNamespace(normalised) ? normalised : undefined;
}
