import type { Command } from 'commander';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { ProgressUpdate } from '../foundation/ports/tool-backend.js';
import { CLI_CALLER } from '../foundation/ports/tool-backend.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import {
  cliScope,
  type GlobalOptions,
  intOption,
  openGateway,
  openOneShot,
  printJson,
  runOneShot,
} from './cli-context.js';
import { namespaceOf } from './one-shot-scope.js';
import { terminalChannel } from './terminal-channel.js';
import { bareNameError, unknownNamespaceError } from './tool-name-hints.js';

export function searchCommand(program: Command): void {
  program
    .command('search')
    .description('Search the catalog for tools matching a task description')
    .argument('<query>', 'what you want to do, e.g. "encode a diagram"')
    .option('--limit <n>', 'how many results (1-100)', intOption('--limit', 1, 100), 10)
    .option('--json', 'print the result as JSON')
    .action((query: string, options: { limit: number; json?: boolean }, command: Command) =>
      runOneShot(async () => {
        // Every server, but a shorter wait: a slow one is not waited for as `serve` would.
        const gateway = await openGateway(command.optsWithGlobals<GlobalOptions>(), undefined, {});
        const page = await cliScope(gateway).search({ query, limit: options.limit });
        if (options.json) return printJson(page);
        if (page.tools.length === 0) {
          process.stdout.write('No tools match.\n');
          return;
        }
        for (const tool of page.tools) {
          process.stdout.write(
            `${(tool.score ?? 0).toFixed(3).padStart(7)}  ${terminalSafe(tool.id)}  ${terminalSafe(tool.description)}\n`,
          );
        }
      }),
    );
}

export function describeCommand(program: Command): void {
  program
    .command('describe')
    .description('Show one tool: its description, input/output schemas and examples')
    .argument('<tool_id>', 'a tool id such as plantuml:encode')
    .option('--detail <level>', 'summary | schema | full', 'schema')
    .action((toolId: string, options: { detail: string }, command: Command) =>
      runOneShot(async () => {
        if (!['summary', 'schema', 'full'].includes(options.detail)) {
          throw new GatewayError(
            'invalid_request',
            `--detail must be summary, schema or full (got "${options.detail}")`,
          );
        }
        const gateway = await openGateway(
          command.optsWithGlobals<GlobalOptions>(),
          undefined,
          needsOf(toolId),
        );
        const scope = cliScope(gateway);
        throwIfBareName(toolId, scope.tools());
        const described = scope.describe(toolId, options.detail as 'summary' | 'schema' | 'full');
        if (options.detail === 'summary') process.stdout.write(`${terminalSafe(described.summary, true)}\n`);
        else printJson(described);
      }),
    );
}

export function runToolCommand(program: Command): void {
  program
    .command('run')
    .description('Run one tool and print its result')
    .argument('<tool_id>', 'a tool id such as time:now')
    .option('--args <json>', 'the arguments as a JSON object', '{}')
    .addHelpText(
      'after',
      `\nExample:\n  $ aperture run plantuml:encode --args '{"source":"Bob -> Alice : hello"}'`,
    )
    .action((toolId: string, options: { args: string }, command: Command) =>
      runOneShot(async () => {
        let args: unknown;
        try {
          args = JSON.parse(options.args);
        } catch (error) {
          throw new GatewayError('invalid_request', `--args is not valid JSON: ${(error as Error).message}`);
        }
        const gateway = await openGateway(
          command.optsWithGlobals<GlobalOptions>(),
          undefined,
          needsOf(toolId),
        );
        const scope = cliScope(gateway);
        throwIfBareName(toolId, scope.tools());
        const channel = terminalChannel();
        const result = await scope.run(toolId, args, {
          caller: CLI_CALLER,
          // A call a policy rule holds for approval is asked on the terminal, when there is one.
          ...(channel ? { channel } : {}),
          // Long tools report progress; on stderr, so stdout stays the result alone.
          progress: (update) => process.stderr.write(`${terminalSafe(progressLine(toolId, update))}\n`),
        });
        if (result.structuredContent !== undefined) return printJson(result.structuredContent);
        // The result is data, passed through as it is to a pipe; on a terminal its controls are
        // shown, not obeyed.
        const out = (text: string) => (process.stdout.isTTY ? terminalSafe(text, true) : text);
        for (const block of result.content) {
          process.stdout.write(out(block.type === 'text' ? `${block.text}\n` : `${JSON.stringify(block)}\n`));
        }
      }),
    );
}

export function listCommand(program: Command): void {
  program
    .command('list')
    .description('List the tools in the catalog')
    .option('--namespace <ns>', 'only this namespace')
    .option('--json', 'print JSON')
    .action((options: { namespace?: string; json?: boolean }, command: Command) =>
      runOneShot(async () => {
        const { gateway, loaded } = await openOneShot(
          command.optsWithGlobals<GlobalOptions>(),
          undefined,
          options.namespace === undefined ? {} : { namespace: options.namespace },
        );
        const all = cliScope(gateway).tools();
        const tools = all.filter((t) => !options.namespace || t.namespace === options.namespace);
        if (options.namespace !== undefined && tools.length === 0) {
          // Only the namespace's own server was started: the others' namespaces come from the config.
          const known = [
            ...all.map((t) => t.namespace),
            ...Object.values(loaded.config.servers).map((entry) => entry.namespace),
          ];
          // A configured server with no tools (down, or empty) is not a typo: nothing to list.
          if (!known.includes(options.namespace)) throw unknownNamespaceError(options.namespace, known);
        }
        if (options.json) {
          return printJson({
            tools: tools.map(({ id, name, namespace, description, tags }) => ({
              id,
              name,
              namespace,
              description,
              tags,
            })),
          });
        }
        for (const tool of tools) {
          process.stdout.write(`${terminalSafe(tool.id)}  ${terminalSafe(firstLine(tool.description))}\n`);
        }
      }),
    );
}

/** A tool id's namespace, whose servers alone the command starts; a bare name needs them all. */
function needsOf(toolId: string): { namespace?: string } {
  const namespace = namespaceOf(toolId);
  return namespace === undefined ? {} : { namespace };
}

/** A bare name (`ping`) that some tool has: the error names its full id (`local:ping`). */
function throwIfBareName(toolId: string, tools: Parameters<typeof bareNameError>[1]): void {
  const error = bareNameError(toolId, tools);
  if (error) throw error;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}

/** `aperture: ns:tool progress 2/5 (40%) message` — one line per notification. */
export function progressLine(toolId: string, update: ProgressUpdate): string {
  const total = update.total === undefined ? '' : `/${update.total}`;
  const percent =
    update.total !== undefined && update.total > 0
      ? ` (${Math.round((update.progress / update.total) * 100)}%)`
      : '';
  const message = update.message ? ` ${update.message}` : '';
  return `aperture: ${toolId} progress ${update.progress}${total}${percent}${message}`;
}
