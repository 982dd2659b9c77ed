import type { Command } from 'commander';
import { exportTools, isToolFormat, TOOL_FORMATS } from '../foundation/adapters/tool-formats.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { cliScope, type GlobalOptions, openGateway, printJson, runOneShot } from './cli-context.js';
import { groupWarnings } from './grouped-warnings.js';

interface ExportCommandOptions {
  format: string;
  strict?: boolean;
  toolset?: string;
}

/**
 * `aperture export --format F [--strict] [--toolset T]`: prints the catalog in a provider's tool
 * format on stdout (JSON), and every feature the format could not carry on stderr, one
 * `warning: …` line each (the same loss across tools grouped, with a count); the exit code stays
 * 0 for warnings.
 */
export function exportCommand(program: Command): void {
  program
    .command('export')
    .description('Print the catalog in a tool format: MCP, OpenAI, Anthropic, Gemini or A2A')
    .requiredOption('--format <format>', TOOL_FORMATS.join(' | '))
    .option('--strict', 'OpenAI formats: strict mode (Structured Outputs) parameters')
    .option('--toolset <name>', 'export only the tools of this toolset')
    .addHelpText('after', '\nExample:\n  $ aperture export --format openai --strict > tools.json')
    .action((options: ExportCommandOptions, command: Command) =>
      runOneShot(async () => {
        const { format } = options;
        // Checked before the gateway starts: a typo should not wait for the catalog to load.
        if (!isToolFormat(format)) {
          throw new GatewayError(
            'invalid_request',
            `--format must be one of ${TOOL_FORMATS.join(', ')} (got "${format}")`,
          );
        }
        const gateway = await openGateway(command.optsWithGlobals<GlobalOptions>());
        if (options.toolset !== undefined && !gateway.toolsets.has(options.toolset)) {
          throw new GatewayError('invalid_request', `unknown toolset "${options.toolset}"`);
        }
        const scope = cliScope(gateway, options.toolset);
        const strict = options.strict === true;
        // Without --strict the Chat Completions output leaves `strict` out, as the API's default.
        const { value, warnings } = exportTools(scope.tools(), format, strict ? { strict } : {});
        if (strict && format !== 'openai' && format !== 'openai-responses') {
          warnings.unshift(`--strict applies to the openai formats only; ignored for ${format}`);
        }
        printJson(value);
        // The same feature loss across many tools is one line with a count, not a hundred lines.
        for (const warning of groupWarnings(warnings))
          process.stderr.write(`warning: ${terminalSafe(oneLine(warning))}\n`);
      }),
    );
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
