// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { BM25_DEFAULTS } from '../discovery/bm25-defaults.js';
import { DEFAULT_FUSION, DEFAULT_QUERY_MEMORY, DEFAULT_SERVER_WEIGHT } from '../discovery/search-defaults.js';
import { configSchema } from './config-schema.js';
import { formatConfigPath } from './interpolate.js';
import { parseConfigText } from './load-config.js';

function search(input: unknown) {
  return configSchema.parse({ search: input }).search;
}

function issuePaths(input: unknown): string[] {
  const result = configSchema.safeParse({ search: input });
  if (result.success) return [];
  return result.error.issues.map((issue) => formatConfigPath(issue.path));
}

describe('config: search', () => {
  it('defaults to bm25 with the tuned parameters, the built-in embedder, failures and learning', () => {
    const defaults = {
      strategy: 'bm25',
      bm25: BM25_DEFAULTS,
      fusion: DEFAULT_FUSION,
      serverWeight: DEFAULT_SERVER_WEIGHT,
      expandQueries: true,
      explain: false,
      verbSynonyms: false,
      embedder: { provider: 'use-lite' },
      failures: { halfLifeMinutes: 10, weight: 0.5 },
      learning: {
        enabled: true,
        maxQueriesPerTool: 500,
        halfLifeDays: 30,
        similarQueries: DEFAULT_QUERY_MEMORY.neighbours,
        similarWeight: DEFAULT_QUERY_MEMORY.weight,
        maxQueryVectors: DEFAULT_QUERY_MEMORY.maxQueries,
      },
      descriptionChars: 160,
    };
    expect(search(undefined)).toEqual(defaults);
    expect(search({ bm25: {} })).toEqual(defaults);
  });

  it('takes descriptionChars within 40..10000 and rejects the rest', () => {
    expect(search({ descriptionChars: 80 }).descriptionChars).toBe(80);
    expect(issuePaths({ descriptionChars: 39 })).toEqual(['search.descriptionChars']);
    expect(issuePaths({ descriptionChars: 1.5 })).toEqual(['search.descriptionChars']);
  });

  it('takes each embedder provider with its own settings', () => {
    expect(search({ embedder: { provider: 'onnx', path: './models/minilm' } }).embedder).toEqual({
      provider: 'onnx',
      path: './models/minilm',
      pooling: 'mean',
    });
    const openai = {
      provider: 'openai',
      url: 'http://localhost:11434/v1',
      model: 'nomic-embed-text',
      dimensions: 256,
    };
    expect(search({ embedder: openai }).embedder).toEqual(openai);
  });

  it('refuses a bad embedder, weight, failure or learning setting, naming the path', () => {
    expect(issuePaths({ embedder: { provider: 'word2vec' } })).toEqual(['search.embedder.provider']);
    expect(issuePaths({ embedder: { provider: 'onnx' } })).toEqual(['search.embedder.path']);
    expect(issuePaths({ embedder: { provider: 'openai', url: 'http://x' } })).toEqual([
      'search.embedder.model',
    ]);
    expect(issuePaths({ embedder: { provider: 'use-lite', path: 'x' } })).toEqual(['search.embedder']);
    expect(issuePaths({ semanticWeight: -1 })).toEqual(['search.semanticWeight']);
    expect(issuePaths({ fusion: 'average' })).toEqual(['search.fusion']);
    expect(issuePaths({ serverWeight: -0.5 })).toEqual(['search.serverWeight']);
    expect(search({ serverWeight: 0 }).serverWeight).toBe(0);
    expect(search({ expandQueries: false }).expandQueries).toBe(false);
    expect(search({ verbSynonyms: true }).verbSynonyms).toBe(true);
    expect(issuePaths({ verbSynonyms: 1 })).toEqual(['search.verbSynonyms']);
    expect(search({ explain: true }).explain).toBe(true);
    expect(issuePaths({ explain: 'yes' })).toEqual(['search.explain']);
    expect(issuePaths({ expandQueries: 'sometimes' })).toEqual(['search.expandQueries']);
    expect(issuePaths({ failures: { halfLifeMinutes: 0 } })).toEqual(['search.failures.halfLifeMinutes']);
    expect(issuePaths({ learning: { maxQueriesPerTool: 0 } })).toEqual(['search.learning.maxQueriesPerTool']);
    expect(issuePaths({ learning: { similarQueries: 2.5 } })).toEqual(['search.learning.similarQueries']);
    expect(issuePaths({ learning: { similarWeight: -1 } })).toEqual(['search.learning.similarWeight']);
    expect(issuePaths({ learning: { maxQueryVectors: 0 } })).toEqual(['search.learning.maxQueryVectors']);
  });

  it('keeps state in SQLite under .aperture by default; memory or redis on request; nothing else', () => {
    expect(configSchema.parse({}).state).toEqual({ driver: 'sqlite', dir: '.aperture' });
    expect(configSchema.parse({ state: { driver: 'memory' } }).state).toEqual({
      driver: 'memory',
      dir: '.aperture',
    });
    expect(() => parseConfigText('state: { driver: postgres }', 'yaml', {})).toThrow(
      'state.driver: must be one of "sqlite", "memory", "redis" (got "postgres")',
    );
  });

  it('takes state.redis with driver redis: prefix and timeout defaults, secrets for the password', () => {
    const parsed = parseConfigText(
      'state: { driver: redis, redis: { url: "redis://cache:6379/2", password: "${env:REDIS_PW}" } }',
      'yaml',
      { env: { REDIS_PW: 'pw' } },
    );
    expect(parsed.config.state).toEqual({
      driver: 'redis',
      dir: '.aperture',
      redis: { url: 'redis://cache:6379/2', prefix: 'aperture:', password: 'pw', commandTimeoutMs: 1000 },
    });
    expect(() => parseConfigText('state: { driver: redis }', 'yaml', {})).toThrow(
      'state.redis: is required with driver: redis',
    );
    expect(() => parseConfigText('state: { driver: redis, redis: { url: "http://x" } }', 'yaml', {})).toThrow(
      'state.redis.url: must be a redis:// or rediss:// URL',
    );
    expect(() =>
      parseConfigText(
        'state: { driver: redis, redis: { url: "redis://x", commandTimeoutMs: 1 } }',
        'yaml',
        {},
      ),
    ).toThrow('state.redis.commandTimeoutMs');
  });

  it('merges the fields given over the defaults', () => {
    const { bm25 } = search({
      bm25: { k1: 0.9, b: { name: 0.1 }, boosts: { description: 2, enumValues: 0 } },
    });
    expect(bm25.k1).toBe(0.9);
    expect(bm25.b).toEqual({ ...BM25_DEFAULTS.b, name: 0.1 });
    expect(bm25.boosts).toEqual({ ...BM25_DEFAULTS.boosts, description: 2, enumValues: 0 });
  });

  it('reads a single b as the value of every field', () => {
    const { b } = search({ bm25: { b: 0.5 } }).bm25;
    expect(Object.keys(b).sort()).toEqual(Object.keys(BM25_DEFAULTS.b).sort());
    for (const value of Object.values(b)) expect(value).toBe(0.5);
  });

  it('accepts numbers written as strings, as ${env:…} gives them', () => {
    const { config } = parseConfigText(
      'search:\n  bm25: { k1: "${env:K1}", b: "${env:B}", boosts: { name: "${env:NAME_BOOST}" } }\n',
      'yaml',
      { env: { K1: '1.5', B: '0.25', NAME_BOOST: '4' } },
    );
    expect(config.search.bm25.k1).toBe(1.5);
    expect(config.search.bm25.b.tags).toBe(0.25);
    expect(config.search.bm25.boosts.name).toBe(4);
  });

  it.each([
    [{ bm25: { k1: -1 } }, 'search.bm25.k1'],
    [{ bm25: { k1: 'fast' } }, 'search.bm25.k1'],
    [{ bm25: { b: 1.5 } }, 'search.bm25.b.name'],
    [{ bm25: { b: { description: -0.2 } } }, 'search.bm25.b.description'],
    [{ bm25: { b: { summary: 0.5 } } }, 'search.bm25.b'],
    [{ bm25: { boosts: { name: -3 } } }, 'search.bm25.boosts.name'],
    [{ bm25: { boosts: { nmae: 3 } } }, 'search.bm25.boosts'],
    [{ bm25: { boosts: 2 } }, 'search.bm25.boosts'],
    [{ bm25: { k2: 1 } }, 'search.bm25'],
    [{ strategy: 'fuzzy' }, 'search.strategy'],
  ])('refuses %j, naming %s', (input, path) => {
    expect(issuePaths(input)).toContain(path);
  });
});

describe('config: search.languages and search.diversify', () => {
  it('leaves both unset by default (all ten languages, diversification on: the search defaults)', () => {
    expect(search(undefined).languages).toBeUndefined();
    expect(search(undefined).diversify).toBeUndefined();
  });

  it('takes a list of lexicon languages, [] included, and a boolean', () => {
    expect(search({ languages: ['es', 'ja'] }).languages).toEqual(['es', 'ja']);
    expect(search({ languages: [] }).languages).toEqual([]);
    expect(search({ diversify: false }).diversify).toBe(false);
  });

  it('refuses a language the lexicon does not have, naming it', () => {
    expect(issuePaths({ languages: ['es', 'xx'] })).toEqual(['search.languages[1]']);
    expect(issuePaths({ diversify: 'sometimes' })).toEqual(['search.diversify']);
  });
});
