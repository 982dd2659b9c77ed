import { createRequire } from 'node:module';
import { GatewayError } from './gateway-error.js';
import { type KnownTokenCounts, readKnownTokenCounts, tokenCountKey } from './known-token-counts.js';

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
}

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
  if (options.known) return Promise.resolve(countingWith(encoding, options.known));
  let counter = loaded.get(encoding);
  if (!counter) {
    counter = countingWith(encoding, undefined);
    loaded.set(encoding, counter);
  }
  return Promise.resolve(counter);
}

/** A counter that asks the known counts first (`undefined`: the shipped ones), then the tokenizer. */
function countingWith(encoding: TokenEncoding, given: KnownTokenCounts | undefined): TokenCounter {
  let known: ReadonlyMap<string, number> | undefined;
  let module: { countTokens(text: string): number } | undefined;
  return {
    encoding,
    count: (text: string) => {
      known ??= (given ?? readKnownTokenCounts()).get(encoding) ?? new Map();
      // Hashing is microseconds; only a text the build did not count is worth the tables.
      const count = known.size > 0 ? known.get(tokenCountKey(text)) : undefined;
      if (count !== undefined) return count;
      module ??= requireEncoding(encoding);
      return module.countTokens(text);
    },
  };
}

/** The encoding's module, loaded synchronously (the package ships CommonJS beside its ES modules). */
function requireEncoding(encoding: TokenEncoding): { countTokens(text: string): number } {
  // One static specifier per encoding, so the package check sees both.
  return encoding === 'o200k_base'
    ? require('gpt-tokenizer/encoding/o200k_base')
    : require('gpt-tokenizer/encoding/cl100k_base');
}
