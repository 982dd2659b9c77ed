import { Command } from 'commander';
import { PACKAGE_INFO } from '../app/package-info.js';
import { addCommand } from './add-command.js';
import { approvalsCommand } from './approvals-command.js';
import { auditCommand } from './audit-command.js';
import { cacheCommand } from './cache-command.js';
import { catalogCommand } from './catalog-command.js';
import { describeCommand, listCommand, runToolCommand, searchCommand } from './catalog-commands.js';
import { logFormatOption } from './cli-context.js';
import { configCommand } from './config-command.js';
import { doctorCommand } from './doctor-command.js';
import { evalCommand } from './eval-command.js';
import { exportCommand } from './export-command.js';
import { initCommand } from './init-command.js';
import { loginCommand } from './login-command.js';
import { policyCommand } from './policy-command.js';
import { registryCommand } from './registry-command.js';
import { removeCommand } from './remove-command.js';
import { serveCommand } from './serve-command.js';
import { toolsetCommand } from './toolset-command.js';
import { trustCommand } from './trust-command.js';

/**
 * The `aperture` command line: every command and option, without parsing anything. `main.ts` runs
 * it; the docs' CLI reference (`scripts/docs-reference.ts`) reads its definitions, so the reference
 * lists exactly the commands this builds.
 */
export function createProgram(): Command {
  const program = new Command('aperture')
    .description(
      'Aperture, a tool gateway for AI agents: one catalog of tools, served by progressive disclosure\n' +
        '(search_tools → describe_tool → run_tool) over MCP stdio and Streamable HTTP.',
    )
    .version(PACKAGE_INFO.version)
    .option(
      '-c, --config <file>',
      'config file (YAML or JSON); default $APERTURE_CONFIG, else ./aperture.yaml if present',
    )
    .option(
      '--log-format <format>',
      'logs on stderr: pretty (one readable line each) | json (default: pretty on a terminal, else json)',
      logFormatOption,
    )
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      outputError: (text, write) => write(`aperture: ${text.trim().replace(/^error: /, '')}\n`),
    })
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : 2);
    });

  serveCommand(program);
  searchCommand(program);
  describeCommand(program);
  runToolCommand(program);
  listCommand(program);
  configCommand(program);
  exportCommand(program);
  evalCommand(program);
  doctorCommand(program);
  initCommand(program);
  catalogCommand(program);
  trustCommand(program);
  loginCommand(program);
  approvalsCommand(program);
  cacheCommand(program);
  auditCommand(program);
  policyCommand(program);
  registryCommand(program);
  addCommand(program);
  removeCommand(program);
  toolsetCommand(program);
  return program;
}
