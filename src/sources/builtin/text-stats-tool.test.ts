import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ToolContext } from '../local/define-tool.js';
import { textStats, textStatsTool } from './text-stats-tool.js';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  progress: () => {},
  log: silentLogger,
  caller: { identity: 'test' },
};

describe('textStats', () => {
  it('counts an English text (hand-counted)', () => {
    const text =
      'The quick brown fox jumps over the lazy dog. The dog sleeps!\n\nA second paragraph here?\nYes.';
    expect(textStats(text, 3)).toEqual({
      characters: 91, // 44 + 16 + 2 + 24 + 1 + 4
      charactersNoSpaces: 74, // minus 14 spaces and 3 line breaks
      bytes: 91,
      words: 17, // 9 + 3 + 4 + 1
      uniqueWords: 14,
      sentences: 4,
      lines: 4, // the blank line between the paragraphs counts
      paragraphs: 2,
      averageWordLength: 4.12, // 70 letters / 17 words
      readingTimeSeconds: 5, // 17 words at 230 wpm = 4.43 s, rounded up
      topWords: [
        { word: 'the', count: 3 },
        { word: 'dog', count: 2 },
        { word: 'a', count: 1 },
      ],
    });
  });

  it('is Unicode-aware: graphemes, CJK words, combining marks and emoji', () => {
    const text = 'Ünïcödé café — naïve 日本語のテキスト 👩‍💻! e\u0301 ok.';
    const stats = textStats(text);
    expect(stats.characters).toBe(38); // the family emoji and the combining é are one character each
    expect(stats.charactersNoSpaces).toBe(31);
    expect(stats.bytes).toBe(Buffer.byteLength(text));
    expect(stats.words).toBe(8); // Ünïcödé café naïve 日本語 の テキスト é ok
    expect(stats.sentences).toBe(2);
    expect(stats.averageWordLength).toBe(3.38); // 27 / 8
    expect(stats.topWords.map((w) => w.word)).toEqual([
      'café',
      'e\u0301',
      'naïve',
      'ok',
      'ünïcödé',
      'の',
      'テキスト',
      '日本語',
    ]);
  });

  it('lower-cases words, counts numbers, and ignores punctuation-only tokens', () => {
    const stats = textStats('Go go GO! 2024, 2024 -- v2 ... & «Go»', 2);
    expect(stats.words).toBe(7);
    expect(stats.topWords).toEqual([
      { word: 'go', count: 4 },
      { word: '2024', count: 2 },
    ]);
    expect(textStats('b a c a b', 10).topWords).toEqual([
      { word: 'a', count: 2 },
      { word: 'b', count: 2 },
      { word: 'c', count: 1 },
    ]);
  });

  it('counts lines and paragraphs across line-break styles and blank lines', () => {
    expect(textStats('a\r\nb\r\n')).toMatchObject({ lines: 2, paragraphs: 1 });
    expect(textStats('one\n \n\t\ntwo\nthree\n\n\nfour')).toMatchObject({
      lines: 8,
      paragraphs: 3,
      words: 4,
    });
    expect(textStats('\n\n\n')).toMatchObject({ lines: 3, paragraphs: 0, sentences: 0 });
    expect(textStats('no newline')).toMatchObject({ lines: 1, paragraphs: 1 });
  });

  it('returns zeros for empty text', () => {
    expect(textStats('')).toEqual({
      characters: 0,
      charactersNoSpaces: 0,
      bytes: 0,
      words: 0,
      uniqueWords: 0,
      sentences: 0,
      lines: 0,
      paragraphs: 0,
      averageWordLength: 0,
      readingTimeSeconds: 0,
      topWords: [],
    });
  });

  it('estimates reading time at 230 words per minute', () => {
    expect(textStats('word '.repeat(230)).readingTimeSeconds).toBe(60);
    expect(textStats('word '.repeat(231)).readingTimeSeconds).toBe(61);
    expect(textStats('word').readingTimeSeconds).toBe(1);
  });
});

describe('text:stats', () => {
  it('defaults top to 10 and honours top = 0', () => {
    const text = 'a b c d e f g h i j k l';
    expect((textStatsTool.handler({ text }, ctx) as { topWords: unknown[] }).topWords).toHaveLength(10);
    expect((textStatsTool.handler({ text, top: 0 }, ctx) as { topWords: unknown[] }).topWords).toEqual([]);
  });

  it('rejects an out-of-range top', () => {
    try {
      textStatsTool.handler({ text: 'x', top: 101 }, ctx);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('validation_input');
      expect((error as GatewayError).details).toMatchObject({ path: '/top' });
    }
  });
});
