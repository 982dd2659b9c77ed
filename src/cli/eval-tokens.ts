import { codeMode } from '../app/code-mode.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { loadTokenCounter, type TokenEncoding } from '../foundation/ports/token-counter.js';
import { createLogger } from '../operations/create-logger.js';
import type { Dataset } from '../sources/dataset/dataset-source.js';
import type { TokenEvaluationReport } from '../surfaces/mcp/token-evaluation.js';
import { printJson } from './cli-context.js';

/** Options of `aperture eval --tokens`. */
export interface TokensEvalOptions {
  config: ApertureConfig;
  strategy?: ApertureConfig['search']['strategy'];
  encoding: TokenEncoding;
  k: number;
  json: boolean;
}

/** `aperture eval --tokens`: what each exposure costs an agent per task on a dataset, as text or JSON. */
export async function runTokensEval(dataset: Dataset, options: TokensEvalOptions): Promise<void> {
  const counter = await loadTokenCounter(options.encoding);
  // Code mode as `serve` would have it with this config: its two metatools are part of the surface.
  const code = codeMode(options.config.codeMode);
  // It drives an MCP client: loaded by this command only, not by every command of the CLI.
  const { runTokenEvaluation } = await import('../surfaces/mcp/token-evaluation.js');
  const report = await runTokenEvaluation(dataset, {
    counter,
    settings: { ...options.config.search, ...(options.strategy ? { strategy: options.strategy } : {}) },
    budgetTokens: options.config.exposure.budgetTokens,
    pinned: options.config.exposure.pinned,
    descriptionChars: options.config.search.descriptionChars,
    k: options.k,
    ...(code ? { code: code.executor } : {}),
    log: createLogger({ level: 'warn' }),
  }).finally(() => code?.close());
  const { runs: _runs, ...summary } = report;
  if (options.json) return printJson(summary);
  process.stdout.write(formatTokenReport(report));
}

/** The text form of a token evaluation. */
export function formatTokenReport(report: TokenEvaluationReport): string {
  const lines = [
    `${report.tools} tools, ${report.queries} queries, encoding ${report.encoding}, search limit k=${report.k}, code mode ${report.codeMode ? 'on' : 'off'}`,
    `flat tools/list ${report.flatListTokens} tokens (${report.flatTokensPerTool} per tool); ` +
      `metatools surface ${report.metatoolSurfaceTokens}, search answer ${report.searchAnswerTokens}, describe_tool ${report.describeTokens} (means)`,
    ...(report.pinned.length > 0
      ? [
          `pinned beside the metatools: ${report.pinned.length} tools (${report.pinned.join(', ')}), in the metatools surface`,
        ]
      : []),
    `auto chose ${report.autoChose}`,
    'mode        tokens/task  found      tokens/success',
  ];
  for (const [name, mode] of Object.entries(report.modes)) {
    lines.push(
      `${name.padEnd(11)} ${String(mode.tokensPerTask).padStart(11)}  ${`${mode.hits}/${report.queries}`.padEnd(9)}  ${mode.tokensPerSuccess ?? '-'}`,
    );
  }
  lines.push(
    `break-even catalog size: ${report.breakEvenTools ?? '-'} tools (metatools tokens/task / flat tokens per tool)`,
  );
  return `${lines.join('\n')}\n`;
}
