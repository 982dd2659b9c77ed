import { describe, expect, it } from 'vitest';
import { termKey, VerbLexicon } from './verb-lexicon.js';

// A few lines in WordNet's formats (offsets, hexadecimal word counts, pointers), made up for the test.
const DATA = [
  '  1 This software and database is being provided to you, the LICENSEE, by',
  '00000001 29 v 03 remove 0 take_away 0 withdraw 0 001 ~ 00000002 v 0000 01 + 08 00 | take something away',
  '00000002 29 v 02 delete 0 erase 0 001 @ 00000001 v 0000 01 + 08 00 | wipe out',
  '00000003 40 v 02 get_rid_of 0 remove 1 000 | dispose of',
  '',
].join('\n');
const INDEX = [
  '  1 This software and database is being provided to you, the LICENSEE, by',
  'remove v 2 2 @ ~ 2 2 00000001 00000003  ',
  'delete v 1 1 @ 1 0 00000002  ',
  'get_rid_of v 1 0 1 0 00000003  ',
  'erase n 1 0 1 0 00000009  ',
].join('\n');

describe('VerbLexicon', () => {
  const lexicon = VerbLexicon.parse(INDEX, DATA);

  it("relates a verb to the synonyms of its most frequent sense, not its hypernyms' or rarer senses'", () => {
    expect(lexicon.relatedTo(termKey('remove'))).toEqual(['take_away', 'withdraw'].map(termKey));
    expect(lexicon.relatedTo(termKey('delete'))).toEqual([termKey('erase')]);
  });

  it('keys phrases by their index terms, and leaves out other parts of speech', () => {
    expect(termKey('get_rid_of')).toBe('get rid');
    expect(lexicon.relatedTo('get rid')).toEqual([termKey('remove')]);
    expect(lexicon.relatedTo(termKey('erase'))).toEqual([]);
    expect(lexicon.size).toBe(3);
  });
});
