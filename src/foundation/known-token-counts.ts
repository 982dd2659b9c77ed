import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Token counts known without a tokenizer: per encoding, the key of a text ({@link tokenCountKey})
 * → the count the tokenizer gives for it. The build counts the texts the package ships (the
 * built-in tools' and the metatools' definitions as auto exposure counts them) into
 * {@link KNOWN_TOKEN_COUNTS_FILE}, so a gateway with the built-in catalog answers its first
 * `tools/list` without loading the tokenizer's tables (150–400 ms).
 */
export type KnownTokenCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** The JSON form of {@link KnownTokenCounts}: `{ "o200k_base": { "<key>": 12, … }, … }`. */
export type KnownTokenCountsJson = Record<string, Record<string, number>>;

/**
 * Where the build writes the shipped counts: `dist/token-counts.json`. Every module of `dist/` (and
 * every chunk of the bundled CLI) sits two levels below the package root, so this one relative
 * path holds in both layouts; from `src/` (tests) it names a file that does not exist.
 */
export const KNOWN_TOKEN_COUNTS_FILE = new URL('../token-counts.json', import.meta.url);

/**
 * The key a text's count is stored under: the SHA-256 of its exact UTF-8 bytes (base64url). A text
 * that differs by one character has another key, so a table left from older definitions can only
 * miss, never give a wrong count.
 */
export function tokenCountKey(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** No known counts: every text goes to the tokenizer. */
export const NO_KNOWN_TOKEN_COUNTS: KnownTokenCounts = new Map();

/** The counts of a {@link KnownTokenCountsJson} value, keeping only well-formed entries. */
export function knownTokenCountsOf(json: unknown): KnownTokenCounts {
  const known = new Map<string, ReadonlyMap<string, number>>();
  if (typeof json !== 'object' || json === null) return known;
  for (const [encoding, counts] of Object.entries(json)) {
    if (typeof counts !== 'object' || counts === null) continue;
    const entries = Object.entries(counts as Record<string, unknown>).filter(
      (entry): entry is [string, number] => Number.isSafeInteger(entry[1]) && (entry[1] as number) >= 0,
    );
    known.set(encoding, new Map(entries));
  }
  return known;
}

/**
 * Reads the known counts from `file`. A missing or unreadable file gives none: the tables are only
 * a shortcut, and the tokenizer counts every text exactly without them.
 */
export function readKnownTokenCounts(file: URL | string = KNOWN_TOKEN_COUNTS_FILE): KnownTokenCounts {
  try {
    return knownTokenCountsOf(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return NO_KNOWN_TOKEN_COUNTS;
  }
}
