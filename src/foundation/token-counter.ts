import { createRequire } from 'node:module';
import { GatewayError } from './gateway-error.js';

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

/**
 * A counter with a real tokenizer (`gpt-tokenizer`). Its tables are a few MB of JavaScript (an
 * o200k_base import takes 150–400 ms here), so they are loaded on the first count, once per
 * encoding: a gateway with auto exposure reaches ready without them, and the first session that
 * needs a count pays for the load. The counts are the tokenizer's, exactly as before.
 *
 * @throws GatewayError `config_invalid` for an encoding not in {@link TOKEN_ENCODINGS}.
 */
export function loadTokenCounter(encoding: TokenEncoding = 'o200k_base'): Promise<TokenCounter> {
  if (!(TOKEN_ENCODINGS as readonly string[]).includes(encoding)) {
    return Promise.reject(
      new GatewayError(
        'config_invalid',
        `Unknown token encoding "${encoding}"; use ${TOKEN_ENCODINGS.join(' or ')}`,
      ),
    );
  }
  let counter = loaded.get(encoding);
  if (!counter) {
    let module: { countTokens(text: string): number } | undefined;
    counter = {
      encoding,
      count: (text: string) => {
        module ??= requireEncoding(encoding);
        return module.countTokens(text);
      },
    };
    loaded.set(encoding, counter);
  }
  return Promise.resolve(counter);
}

/** The encoding's module, loaded synchronously (the package ships CommonJS beside its ES modules). */
function requireEncoding(encoding: TokenEncoding): { countTokens(text: string): number } {
  // One static specifier per encoding, so the package check sees both.
  return encoding === 'o200k_base'
    ? require('gpt-tokenizer/encoding/o200k_base')
    : require('gpt-tokenizer/encoding/cl100k_base');
}
