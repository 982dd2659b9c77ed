import { describe, expect, it } from 'vitest';
import { tokenize } from './tokenizer.js';
import { Vocabulary } from './vocabulary.js';

describe('Vocabulary', () => {
  it('numbers terms as tokenize sees them, one id per stem', () => {
    const vocabulary = new Vocabulary();
    const ids: number[] = [];
    vocabulary.forEachTerm('Create the issues; createIssue creating ISSUE', (id) => ids.push(id));
    expect(ids).toEqual([0, 1, 0, 1, 0, 1]);
    expect(ids).toHaveLength(tokenize('Create the issues; createIssue creating ISSUE').length);
    expect(vocabulary.size).toBe(2);
  });

  it('looks up distinct known terms without adding unknown ones', () => {
    const vocabulary = new Vocabulary();
    vocabulary.forEachTerm('list files', () => {});
    expect(vocabulary.lookup('files listing list of zebras')).toEqual([1, 0]);
    expect(vocabulary.size).toBe(2);
    expect(vocabulary.lookup('the of')).toEqual([]);
  });

  it('uses the word normaliser it is given (stop words and stems), on both sides', () => {
    const vocabulary = new Vocabulary((word) => (word === 'zap' ? undefined : word));
    const ids: number[] = [];
    vocabulary.forEachTerm('files zap listing', (id) => ids.push(id));
    expect(ids).toEqual([0, 1]);
    expect(vocabulary.lookup('listing zap file')).toEqual([1]);
  });

  it('indexes CJK text as character bigrams', () => {
    const vocabulary = new Vocabulary();
    vocabulary.forEachTerm('搜索结果', () => {});
    expect(vocabulary.size).toBe(3);
    expect(vocabulary.lookup('结果')).toEqual([2]);
    expect(vocabulary.lookup('搜索引擎')).toEqual([0]);
  });
});
