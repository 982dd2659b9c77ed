import { createRequire } from 'node:module';
import { type KnownTokenCounts, readKnownTokenCounts, tokenCountKey } from '../known-token-counts.js';
import { GatewayError } from '../model/gateway-error.js';
import type { StateStore } from './state-store.js';

const require = createRequire(import.meta.url);

/** The tokenizer encodings a {@link TokenCounter} can count with (OpenAI's; close for other models). */
export const TOKEN_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];

/**
 * Counts the tokens a model reads for a text: the one measure of what a tool list, a search answer
 * or a schema costs an agent's context (exposure `auto`, the console's token meter, `eval --tokens`).
 */
export interface TokenCounter {
  /** The encoding counted with, e.g. `o200k_base`; `approximate` for the character estimate. */
  readonly encoding: string;
  count(text: string): number;
}

/**
 * The reference counter: characters / 4, rounded up — the usual rule of thumb for English and JSON.
 * For tests and for code that must not load a tokenizer's tables.
 */
export const approximateTokenCounter: TokenCounter = {
  encoding: 'approximate',
  count: (text) => Math.ceil(text.length / 4),
};

const loaded = new Map<TokenEncoding, TokenCounter>();

/** Options of {@link loadTokenCounter}. */
export interface LoadTokenCounterOptions {
  /**
   * Counts known without the tokenizer. Default: the counts the build shipped
   * (`known-token-counts.ts`), read on the first count. Given: a counter of its own, not shared.
   */
  known?: KnownTokenCounts;
  /**
   * Where counts the tokenizer gave are kept across restarts (the gateway's state store, scope
   * {@link TOKEN_COUNT_SCOPE}): a gateway restarted on the same catalog counts it without loading
   * the tables. Given: a counter of its own, not shared.
   */
  store?: StateStore;
}

/** The state store scope of remembered token counts: key `<encoding>:<text key>` → count. */
export const TOKEN_COUNT_SCOPE = 'token-counts';

/**
 * Past this many remembered counts the scope is emptied before the next is kept: texts of tools
 * long gone would otherwise pile up, and a catalog's texts are counted again in one listing.
 */
export const MAX_REMEMBERED_TOKEN_COUNTS = 20_000;

/**
 * A counter with a real tokenizer (`gpt-tokenizer`). Its tables are a few MB of JavaScript (an
 * o200k_base import takes 150–400 ms here), so they are loaded on the first count the known counts
 * do not answer, once per encoding: the texts the package ships (the built-in catalog's listing)
 * are counted at build time, so a gateway on the built-in catalog lists its tools without the
 * tables, and the first text of a user's own catalog pays for the load. Every count is the
 * tokenizer's, exactly: a known count is what it gave for that very text.
 *
 * @throws GatewayError `config_invalid` for an encoding not in {@link TOKEN_ENCODINGS}.
 */
export function loadTokenCounter(
  encoding: TokenEncoding = 'o200k_base',
  options: LoadTokenCounterOptions = {},
): Promise<TokenCounter> {
  if (!(TOKEN_ENCODINGS as readonly string[]).includes(encoding)) {
    return Promise.reject(
      new GatewayError(
        'config_invalid',
        `Unknown token encoding "${encoding}"; use ${TOKEN_ENCODINGS.join(' or ')}`,
      ),
    );
  }
  if (options.known || options.store) return Promise.resolve(countingWith(encoding, options));
  let counter = loaded.get(encoding);
  if (!counter) {
    counter = countingWith(encoding, {});
    loaded.set(encoding, counter);
  }
  return Promise.resolve(counter);
}

/**
 * A counter that asks the known counts first (default: the shipped ones), then the store's
 * remembered counts, then the tokenizer, remembering what it gave.
 */
function countingWith(encoding: TokenEncoding, options: LoadTokenCounterOptions): TokenCounter {
  const { store } = options;
  let known: ReadonlyMap<string, number> | undefined;
  let module: { countTokens(text: string): number } | undefined;
  return {
    encoding,
    count: (text: string) => {
      known ??= (options.known ?? readKnownTokenCounts()).get(encoding) ?? new Map();
      if (known.size === 0 && !store) return tokenizer().countTokens(text);
      // Hashing is microseconds; only a text counted nowhere before is worth the tables.
      const key = tokenCountKey(text);
      const shipped = known.get(key);
      if (shipped !== undefined) return shipped;
      const remembered = store ? rememberedCount(store, `${encoding}:${key}`) : undefined;
      if (remembered !== undefined) return remembered;
      const count = tokenizer().countTokens(text);
      if (store) remember(store, `${encoding}:${key}`, count);
      return count;
    },
  };

  function tokenizer(): { countTokens(text: string): number } {
    module ??= requireEncoding(encoding);
    return module;
  }
}

function rememberedCount(store: StateStore, key: string): number | undefined {
  try {
    const value = store.get(TOKEN_COUNT_SCOPE, key);
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  } catch {
    // A store that fails (closed, Redis down) only costs the shortcut.
    return undefined;
  }
}

function remember(store: StateStore, key: string, count: number): void {
  try {
    if (store.count(TOKEN_COUNT_SCOPE) >= MAX_REMEMBERED_TOKEN_COUNTS) {
      for (const [old] of store.entries(TOKEN_COUNT_SCOPE)) store.delete(TOKEN_COUNT_SCOPE, old);
    }
    store.set(TOKEN_COUNT_SCOPE, key, count);
  } catch {
    // Not remembered: the next start counts this text again, exactly the same.
  }
}

/** The encoding's module, loaded synchronously (the package ships CommonJS beside its ES modules). */
function requireEncoding(encoding: TokenEncoding): { countTokens(text: string): number } {
  // One static specifier per encoding, so the package check sees both.
  return encoding === 'o200k_base'
    ? require('gpt-tokenizer/encoding/o200k_base')
    : require('gpt-tokenizer/encoding/cl100k_base');
}
