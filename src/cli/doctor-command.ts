import path from 'node:path';
import type { Command } from 'commander';
import { OAuthSupport } from '../app/oauth-support.js';
import { PACKAGE_INFO } from '../app/package-info.js';
import { checkSharedState, openCommandState } from '../app/shared-state.js';
import { loadConfig } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { createLogger } from '../operations/create-logger.js';
import { createSecretMasker, maskStrings } from '../operations/secrets/secret-masker.js';
import { PackageCache } from '../sources/mcp/package-cache.js';
import { enterConfigChain } from '../sources/mcp/self-launch.js';
import {
  atCommandEnd,
  type GlobalOptions,
  intOption,
  logFormatOf,
  printJson,
  runOneShot,
  stateDirOf,
} from './cli-context.js';
import { ConnectionTracker } from './connection-tracker.js';
import { StreamingTable, summarise, summaryLine } from './doctor-report.js';
import { checkServer, elapsed, type ServerCheck } from './doctor-server-check.js';

interface DoctorOptions extends GlobalOptions {
  timeout: number;
  json?: boolean;
}

/** How long the command waits for late connections (after a timeout) to close before it returns. */
const CLEANUP_WAIT_MS = 5000;

/** `aperture doctor`: checks every configured server (connect, initialize, list) and reports each. */
export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check every configured MCP server: connect and initialize, list its tools (all pages), time each step',
    )
    .option('--timeout <ms>', 'per-server time limit for connecting and listing', timeoutOption, 30_000)
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Servers are checked concurrently; each line is printed as its check ends (disabled ones: skipped).
Exit code 0 when every enabled server answered, 1 when any failed.

Examples:
  $ aperture doctor
  $ aperture doctor --config gw.yaml --timeout 5000 --json`,
    )
    .action((options: DoctorOptions, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const loaded = await loadConfig({ file: global.config, cwd: process.cwd(), env: process.env });
        enterConfigChain(loaded.file);
        for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
        const configName = loaded.file ? path.relative(process.cwd(), loaded.file) || loaded.file : undefined;
        const entries = Object.entries(loaded.config.servers);

        // OAuth servers are checked with the tokens a login stored, as the gateway would use them.
        let oauth: OAuthSupport | undefined;
        const support = new OAuthSupport(
          loaded.config,
          createLogger({ level: 'silent', mask: loaded.secretValues, format: logFormatOf(global) }),
        );
        if (support.enabled) {
          const stateDir = stateDirOf();
          const { store: state, close } = await openCommandState(loaded.config, loaded.baseDir, {
            ...(stateDir === undefined ? {} : { dir: stateDir }),
            log: createLogger({ level: 'warn', mask: loaded.secretValues, format: logFormatOf(global) }),
          });
          atCommandEnd(close);
          support.bind(state);
          oauth = support;
        }

        // Replicas share their state in Redis: doctor says whether it answers (`state: redis …`).
        const sharedState =
          loaded.config.state.driver === 'redis'
            ? maskStrings(
                await checkSharedState(loaded.config, Math.min(options.timeout, 10_000)),
                createSecretMasker(loaded.secretValues),
              )
            : undefined;
        if (sharedState && !options.json) {
          process.stdout.write(
            `state: redis ${sharedState.url} ${sharedState.state === 'up' ? 'up' : `DOWN (${sharedState.reason ?? 'no answer'})`}\n\n`,
          );
        }

        const started = performance.now();
        const tracker = new ConnectionTracker();
        // `npx -y pkg` servers are checked as the gateway starts them: from its package cache.
        const stateDir = stateDirOf() ?? path.resolve(loaded.baseDir, loaded.config.state.dir);
        const packages = new PackageCache({ dir: path.join(stateDir, 'packages'), log: silentLogger });
        // Interrupted (SIGINT, SIGTERM, EPIPE): every server started so far is stopped before exit.
        atCommandEnd(() => tracker.closeAll());
        // Without --json each server's line is printed the moment its check ends, so a slow or
        // hanging server does not hide what is already known about the others.
        const table = options.json || entries.length === 0 ? undefined : new StreamingTable(entries);
        table?.header();
        let checks: ServerCheck[];
        try {
          checks = await Promise.all(
            entries.map(async ([name, entry]) => {
              const check = await checkServer(name, entry, {
                baseDir: loaded.baseDir,
                timeoutMs: options.timeout,
                clientInfo: {
                  name: `aperture (${loaded.config.server.name})`,
                  version: PACKAGE_INFO.version,
                },
                tracker,
                oauth,
                packages,
                sandbox: {
                  settings: loaded.config.sandbox,
                  stateDir,
                  ...(loaded.file === undefined ? {} : { configFile: loaded.file }),
                },
              });
              table?.row(check);
              return check;
            }),
          );
        } finally {
          await tracker.settle(CLEANUP_WAIT_MS);
        }
        const totalMs = elapsed(started);
        // Errors and stderr lines may name a URL's key, a header or env value: masked like logs.
        checks = maskStrings(checks, createSecretMasker(loaded.secretValues));
        const summary = summarise(checks, totalMs);

        if (options.json) {
          printJson({
            config: loaded.file ?? null,
            ...(sharedState === undefined ? {} : { state: sharedState }),
            servers: checks,
            summary,
          });
        } else if (checks.length === 0) {
          process.stdout.write(
            `No MCP servers configured${configName ? ` in ${configName}` : ' (no config file found)'}; ` +
              'add some under "servers" or "mcpServers".\n',
          );
        } else {
          process.stdout.write(`\n${summaryLine(summary)}\n`);
        }

        if (sharedState && sharedState.state !== 'up') {
          throw new GatewayError(
            'backend_unavailable',
            `doctor: state: redis ${sharedState.url} is not reachable: ${sharedState.reason ?? 'no answer'}`,
          );
        }
        const failed = checks.filter((check) => check.state === 'failed');
        if (failed.length > 0) {
          throw new GatewayError(
            'backend_unavailable',
            `doctor: ${failed.length} of ${summary.checked} servers failed: ${failed.map((c) => c.name).join(', ')}`,
          );
        }
        // Not checked yet: the install goes on without doctor, which a later run then sees through.
        const installing = checks.filter((check) => check.state === 'installing');
        if (installing.length > 0) {
          throw new GatewayError(
            'backend_unavailable',
            `doctor: ${installing.map((c) => c.name).join(', ')} still installing (it goes on in the background); run doctor again`,
          );
        }
      }),
    );
}

const timeoutOption = intOption('--timeout', 1, 3_600_000);
