import { Catalog } from '../catalog/catalog.js';
import { ToolScope } from '../composition/tool-scope.js';
import { DEFAULT_CONFIG } from '../config/config-schema.js';
import { ToolSearch } from '../discovery/tool-search.js';
import { RunPipeline } from '../execution/run-pipeline.js';
import {
  type KnownTokenCountsJson,
  NO_KNOWN_TOKEN_COUNTS,
  tokenCountKey,
} from '../foundation/known-token-counts.js';
import { loadTokenCounter, TOKEN_ENCODINGS, type TokenCounter } from '../foundation/ports/token-counter.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { BUILTIN_SOURCE_ID, builtinEntries } from '../sources/builtin/builtin-source.js';
import { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { tokenCosts } from './token-costs.js';

/**
 * Every text exposure `auto` counts for the built-in catalog under the default config, for each
 * set of metatools a session can be served (with and without code mode, toolsets, skills): the
 * metatools' `tools/list` entries, the typical search and describe answers, and each built-in
 * tool's flat entry. What the build counts into `dist/token-counts.json`
 * (`scripts/count-shipped-tokens.mjs`). A config that changes these texts (a user's tools,
 * pinned tools, other description lengths) gets its other texts counted by the tokenizer.
 */
export function shippedTokenTexts(): string[] {
  const catalog = new Catalog();
  // The tools as the gateway publishes them (the `sources` feature), under the same source id.
  catalog.replaceSource(BUILTIN_SOURCE_ID, builtinEntries());
  catalog.flush();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const scope = new ToolScope({
    catalog,
    search: new ToolSearch(catalog),
    pipeline,
    maxChainSteps: DEFAULT_CONFIG.execution.maxChainSteps,
    descriptionChars: DEFAULT_CONFIG.search.descriptionChars,
  });
  const texts = new Set<string>();
  const recorder: TokenCounter = {
    encoding: 'recording',
    count: (text) => {
      texts.add(text);
      return 0;
    },
  };
  const { mode: _mode, encoding, ...exposure } = DEFAULT_CONFIG.exposure;
  for (const code of [false, true]) {
    for (const toolsets of [false, true]) {
      for (const skills of [false, true]) {
        // Every flat entry and the whole metatools side: a superset of what a session counts.
        tokenCosts(scope, {
          code,
          toolsets,
          skills,
          naming: new FlatNaming(),
          exposure,
          counter: recorder,
          encoding,
        });
      }
    }
  }
  return [...texts];
}

/** The tokenizer's count of every {@link shippedTokenTexts} text, per encoding, keyed as the counter looks them up. */
export async function shippedTokenCounts(): Promise<KnownTokenCountsJson> {
  const texts = shippedTokenTexts();
  const counts: KnownTokenCountsJson = {};
  for (const encoding of TOKEN_ENCODINGS) {
    // No known counts: this is where they come from.
    const counter = await loadTokenCounter(encoding, { known: NO_KNOWN_TOKEN_COUNTS });
    const table: Record<string, number> = {};
    for (const text of texts) table[tokenCountKey(text)] = counter.count(text);
    counts[encoding] = table;
  }
  return counts;
}
