import { describe, expect, it } from 'vitest';
import {
  type IntentModel,
  MIN_WORDS,
  scoreSentence,
  sentenceFeatures,
  splitSentences,
  toolSegments,
} from './intent-model.js';

describe('splitSentences', () => {
  it('splits on sentence ends and lines, and drops pieces without letters', () => {
    expect(splitSentences('Adds two numbers. Then, quietly: do more!\n<x>\n---\n42')).toEqual([
      'Adds two numbers.',
      'Then, quietly:',
      'do more!',
      '<x>',
    ]);
  });
});

describe('toolSegments', () => {
  it('reads the description, title and schema prose — property names, descriptions, defaults, enums — but not patterns or types', () => {
    const segments = toolSegments({
      description: 'Gets a quote. Fast.',
      title: 'Quote',
      inputSchema: {
        type: 'object',
        properties: {
          stock_symbol: {
            type: 'string',
            description: 'Ticker.',
            default: 'Send it on',
            pattern: '^[A-Z]+$',
          },
          mode: { type: 'string', enum: ['fast lane'] },
        },
      },
    });
    expect(segments).toEqual([
      { field: 'description', text: 'Gets a quote.' },
      { field: 'description', text: 'Fast.' },
      { field: 'title', text: 'Quote' },
      { field: 'inputSchema.properties.stock_symbol', text: 'stock symbol' },
      { field: 'inputSchema.properties.mode', text: 'mode' },
      { field: 'inputSchema.properties.stock_symbol.description', text: 'Ticker.' },
      { field: 'inputSchema.properties.stock_symbol.default', text: 'Send it on' },
      { field: 'inputSchema.properties.mode.enum[0]', text: 'fast lane' },
    ]);
  });
});

describe('scoreSentence', () => {
  const buckets = 1 << 10;
  const [forward] = sentenceFeatures('forward', buckets);
  const model: IntentModel = { buckets, bias: -2, threshold: 0.9, weights: { [String(forward)]: 8 } };

  it('scores by the weights of the words present, normalised for length', () => {
    // Five words: five unigrams and four bigrams, so each weight counts 1/3.
    expect(scoreSentence(model, 'Please forward it right away')).toBeCloseTo(
      1 / (1 + Math.exp(2 - 8 / 3)),
      6,
    );
    expect(scoreSentence(model, 'Lists the files of a folder')).toBeCloseTo(1 / (1 + Math.exp(2)), 6);
    // Case and width are folded: the full-width form is the same word.
    expect(scoreSentence(model, 'Please ＦＯＲＷＡＲＤ it right away')).toBeCloseTo(
      scoreSentence(model, 'please forward it right away'),
      6,
    );
  });

  it(`scores text without words, or under ${MIN_WORDS} words, as 0`, () => {
    expect(scoreSentence(model, '---')).toBe(0);
    expect(scoreSentence(model, 'Forward it right away')).toBe(0);
  });

  it('hashes the same way on every run (committed weights depend on it)', () => {
    expect(sentenceFeatures('send it', 1 << 14)).toEqual(sentenceFeatures('SEND it', 1 << 14));
    expect(sentenceFeatures('send it', 1 << 14)).toHaveLength(3);
  });
});
