import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { runEvaluation } from '../composition/evaluation/run-evaluation.js';
import { loadConfig } from '../config/load-config.js';
import { GatewayError } from '../foundation/gateway-error.js';
import { loadDataset } from '../sources/dataset/dataset-source.js';
import { type GlobalOptions, intOption, printJson, runCommand } from './cli-context.js';

interface EvalOptions {
  dataset: string;
  queries?: string;
  strategy: string;
  k: number;
  runs?: string;
  json?: boolean;
  sample?: number;
}

export function evalCommand(program: Command): void {
  program
    .command('eval')
    .description(
      'Measure search quality on a labelled dataset: Recall@1/5/10, NDCG@5/10, COMP@5/10, MRR, latency',
    )
    .requiredOption('--dataset <dir>', 'folder with tools.jsonl and queries.jsonl')
    .option('--queries <file>', 'another queries file (relative to the dataset folder)')
    .option('--strategy <s>', 'bm25 | lexical', 'bm25')
    .option('--k <n>', 'results kept per query (10-100)', intOption('--k', 10, 100), 10)
    .option(
      '--sample <n>',
      'evaluate n queries, evenly spaced (every n-th of a large file)',
      intOption('--sample', 1, 10_000_000),
    )
    .option('--runs <file>', 'write one line per query: {"id", "ranked": [dataset tool ids]}')
    .option('--json', 'print the metrics as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ aperture eval --dataset path/to/tool-retrieval/toollens --queries queries_train.jsonl',
    )
    .action((options: EvalOptions, command: Command) =>
      runCommand(async () => {
        if (options.strategy !== 'bm25' && options.strategy !== 'lexical') {
          throw new GatewayError(
            'invalid_request',
            `--strategy must be bm25 or lexical (got "${options.strategy}")`,
          );
        }
        // With --config, the config's search parameters (search.bm25) are the ones measured.
        const configFile = command.optsWithGlobals<GlobalOptions>().config;
        const bm25 = configFile
          ? (await loadConfig({ file: configFile, cwd: process.cwd(), env: process.env })).config.search.bm25
          : undefined;
        const dataset = await loadDataset(options.dataset, options.queries);
        if (options.sample !== undefined && options.sample < dataset.queries.length) {
          const step = dataset.queries.length / options.sample;
          dataset.queries = Array.from(
            { length: options.sample },
            (_, i) => dataset.queries[Math.floor(i * step)]!,
          );
        }
        const report = runEvaluation(dataset, {
          strategy: options.strategy,
          ...(bm25 ? { bm25 } : {}),
          k: options.k,
          onProgress: (done, total) => process.stderr.write(`\r${done}/${total} queries`),
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
          `${report.tools} tools, ${report.queries} queries, strategy ${report.strategy}\n`,
        );
        for (const [name, value] of Object.entries(report.metrics)) {
          process.stdout.write(`${name.padEnd(8)} ${value.toFixed(2)}\n`);
        }
        process.stdout.write(`latency  p50 ${report.latencyMs.p50} ms, p95 ${report.latencyMs.p95} ms\n`);
      }),
    );
}
