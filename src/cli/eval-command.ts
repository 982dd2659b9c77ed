import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { openSearchBacking } from '../app/search-parts.js';
import { runEvaluation } from '../composition/evaluation/run-evaluation.js';
import { loadConfig, parseConfigValue } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { TOKEN_ENCODINGS, type TokenEncoding } from '../foundation/ports/token-counter.js';
import { createLogger } from '../operations/create-logger.js';
import { loadDataset, loadQueries } from '../sources/dataset/dataset-source.js';
import { type GlobalOptions, intOption, printJson, runOneShot, stateDirOf } from './cli-context.js';
import { datasetList, resolveDataset } from './eval-datasets.js';
import { runTokensEval } from './eval-tokens.js';

interface EvalOptions {
  dataset: string;
  queries?: string;
  strategy?: string;
  k?: number;
  runs?: string;
  learn?: string;
  json?: boolean;
  sample?: number;
  tokens?: boolean;
  encoding?: string;
}

const STRATEGIES = ['lexical', 'bm25', 'semantic', 'hybrid'] as const;

/** `every n-th` of a list, n chosen so that `count` items remain. */
function sampled<T>(items: T[], count: number | undefined): T[] {
  if (count === undefined || count >= items.length) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]!);
}

/** A progress line on stderr, rewritten in place. */
const progress = (label: string) => (done: number, total: number) =>
  process.stderr.write(`\r${label} ${done}/${total}`);

export function evalCommand(program: Command): void {
  program
    .command('eval')
    .description(
      'Measure search quality on a labelled dataset: Recall@1/5/10, NDCG@5/10, COMP@5/10, MRR, latency',
    )
    .requiredOption(
      '--dataset <name|dir>',
      'a data set that ships with Aperture (below), or a folder with tools.jsonl and queries.jsonl',
    )
    .option('--queries <file>', 'another queries file (relative to the dataset folder)')
    .option('--strategy <s>', "lexical | bm25 | semantic | hybrid (default: the config's search.strategy)")
    .option(
      '--k <n>',
      'results kept per query (10-100; with --tokens 1-100, default 5)',
      intOption('--k', 1, 100),
    )
    .option(
      '--sample <n>',
      'evaluate n queries, evenly spaced (every n-th of a large file)',
      intOption('--sample', 1, 10_000_000),
    )
    .option(
      '--learn <file>',
      'first replay these labelled queries (relative to the dataset folder) as searches followed by runs of their relevant tools',
    )
    .option('--runs <file>', 'write one line per query: {"id", "ranked": [dataset tool ids]}')
    .option(
      '--tokens',
      'instead of search quality, the tokens an agent reads per task under flat, metatools and auto exposure (search limit: --k, default 5 here)',
    )
    .option('--encoding <e>', `tokenizer encoding for --tokens: ${TOKEN_ENCODINGS.join(' | ')}`, 'o200k_base')
    .option('--json', 'print the metrics as JSON')
    .addHelpText(
      'after',
      [
        '',
        'The search settings (search.*: BM25F parameters, embedder, semantic weight, learning) and the',
        'state store that caches tool vectors (state.*) are read from --config when given.',
        '',
        'Data sets that ship with Aperture (in the repository, not the npm package):',
        datasetList(),
        'Any other: a folder in the same format (docs/SEARCH.md, "Data sets": the public benchmarks',
        'its figures come from, and where to get them).',
        '',
        'Examples:',
        '  $ aperture eval --dataset mini',
        '  $ aperture eval --dataset mini --strategy hybrid --learn queries_learn.jsonl',
        '  $ aperture eval --dataset ./my-benchmark --queries queries_train.jsonl --json',
      ].join('\n'),
    )
    .action((options: EvalOptions, command: Command) =>
      runOneShot(async () => {
        if (options.strategy !== undefined && !(STRATEGIES as readonly string[]).includes(options.strategy)) {
          throw new GatewayError(
            'invalid_request',
            `--strategy must be one of ${STRATEGIES.join(', ')} (got "${options.strategy}")`,
          );
        }
        if (!options.tokens && options.k !== undefined && options.k < 10) {
          throw new GatewayError('invalid_request', `--k must be 10-100 without --tokens (got ${options.k})`);
        }
        // A name of a shipped data set, or a folder: an unknown name is an error listing the names.
        options.dataset = resolveDataset(options.dataset, process.cwd());
        const configFile = command.optsWithGlobals<GlobalOptions>().config;
        const { config, baseDir } = configFile
          ? await loadConfig({ file: configFile, cwd: process.cwd(), env: process.env })
          : { config: parseConfigValue({}).config, baseDir: process.cwd() };
        if (options.tokens) {
          if (!(TOKEN_ENCODINGS as readonly string[]).includes(options.encoding ?? '')) {
            throw new GatewayError(
              'invalid_request',
              `--encoding must be one of ${TOKEN_ENCODINGS.join(', ')} (got "${options.encoding}")`,
            );
          }
          const dataset = await loadDataset(options.dataset, options.queries);
          dataset.queries = sampled(dataset.queries, options.sample);
          return runTokensEval(dataset, {
            config,
            ...(options.strategy ? { strategy: options.strategy as (typeof STRATEGIES)[number] } : {}),
            encoding: options.encoding as TokenEncoding,
            k: options.k ?? 5,
            json: options.json === true,
          });
        }
        const settings = {
          ...config.search,
          ...(options.strategy ? { strategy: options.strategy as (typeof STRATEGIES)[number] } : {}),
        };
        const dataset = await loadDataset(options.dataset, options.queries);
        dataset.queries = sampled(dataset.queries, options.sample);
        const learn = options.learn
          ? await loadQueries(path.resolve(options.dataset, options.learn))
          : undefined;
        const stateDir = stateDirOf();
        const backing = openSearchBacking(config, baseDir, {
          strategy: settings.strategy,
          ...(stateDir ? { stateDir } : {}),
          log: createLogger({ level: 'warn' }),
        });
        const { embedder } = backing;
        try {
          const report = await runEvaluation(dataset, {
            settings,
            ...(embedder ? { embedder } : {}),
            vectorCache: backing.state,
            ...(learn ? { learn } : {}),
            k: options.k ?? 10,
            onEmbedProgress: progress('embedding tools'),
            onQueryEmbedProgress: progress('embedding queries to replay'),
            onLearnProgress: progress('learning'),
            onProgress: progress('queries'),
          });
          process.stderr.write('\n');
          if (options.runs) {
            await writeFile(
              options.runs,
              report.runs.map((r) => JSON.stringify(r)).join('\n') + (report.runs.length ? '\n' : ''),
            );
          }
          const { runs: _runs, ...summary } = report;
          if (options.json) return printJson(summary);
          process.stdout.write(
            `${report.tools} tools, ${report.queries} queries, strategy ${report.strategy} (answered by ${report.answeredBy.join(', ') || 'none'})\n`,
          );
          if (report.learned) {
            process.stdout.write(
              `learned from ${report.learned.queries} queries: ${report.learned.tools} tools\n`,
            );
          }
          for (const [name, value] of Object.entries(report.metrics)) {
            process.stdout.write(`${name.padEnd(8)} ${value.toFixed(2)}\n`);
          }
          process.stdout.write(`latency  p50 ${report.latencyMs.p50} ms, p95 ${report.latencyMs.p95} ms\n`);
        } finally {
          await backing.close();
        }
      }),
    );
}
