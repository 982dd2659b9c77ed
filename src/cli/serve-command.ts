import type { Command } from 'commander';
import { watchConfigFile } from '../app/config-watcher.js';
import { Gateway } from '../app/gateway.js';
import { loadConfig } from '../config/load-config.js';
import { createLogger } from '../operations/create-logger.js';
import { enterConfigChain } from '../sources/mcp/self-launch.js';
import {
  type GlobalOptions,
  intOption,
  logFormatOf,
  reportWarnings,
  runCommand,
  stateDirOf,
} from './cli-context.js';
import { tierUpSoonerShortly } from './tier-up-sooner.js';

interface ServeOptions extends GlobalOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  stateDir?: string;
  /** False with `--no-watch`: edits of the config file are applied on SIGHUP or the admin API only. */
  watch?: boolean;
}

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the gateway: MCP over Streamable HTTP (default) and/or stdio')
    .option('--stdio', 'serve MCP on stdin/stdout (logs go to stderr only)')
    .option('--http', 'serve over HTTP (the default when --stdio is not given)')
    .option('--host <host>', 'address to bind (default: server.host from the config, 127.0.0.1)')
    .option(
      '--port <port>',
      'port to listen on; 0 picks a free one (default: server.port, 8080)',
      intOption('--port', 0, 65535),
    )
    .option(
      '--state-dir <dir>',
      'where to keep state (embeddings, learned queries); default: APERTURE_STATE_DIR, else state.dir of the config (./.aperture), else ~/.local/state/aperture',
    )
    .option('--no-watch', 'do not apply edits of the config file as they are saved (SIGHUP still reloads)')
    .addHelpText(
      'after',
      `
Without --config, ./aperture.yaml (or .yml/.json) is used when present, else the built-in catalog.
Edits of the config file are applied while serving (servers added, removed or changed restart
alone; open sessions stay); SIGHUP and POST /api/admin/reload reload too. --no-watch: only those.

Examples:
  $ aperture serve                       # http://127.0.0.1:8080/mcp
  $ aperture serve --stdio               # for Claude Desktop, Cursor and other stdio clients
  $ aperture serve --config gw.yaml --port 9000`,
    )
    .action((options: ServeOptions, command: Command) =>
      runCommand(async () => {
        const global = command.optsWithGlobals<ServeOptions>();
        const from = { file: global.config, cwd: process.cwd(), env: process.env };
        const loaded = await loadConfig(from);
        // Started by this same gateway as one of its servers (a wrapper the config check missed): refuse.
        enterConfigChain(loaded.file);
        const log = createLogger({
          level: loaded.config.observability.logLevel,
          mask: loaded.secretValues,
          format: logFormatOf(global),
        });
        reportWarnings(loaded.warnings, log, loaded.notices);
        const stateDir = stateDirOf(options.stateDir);
        const http = options.http || !options.stdio;
        const gateway = await Gateway.create({
          loaded,
          log,
          http,
          ...(stateDir ? { stateDir } : {}),
          // Reloads read the file serve started with, not whatever a later APERTURE_CONFIG names.
          reloadFrom: loaded.file ? { file: loaded.file, cwd: from.cwd, env: from.env } : from,
        });
        // A refused reload was logged by the gateway, once; the running config stays.
        const reload = (trigger: 'watch' | 'signal') => gateway.reload(trigger).catch(() => {});
        const stopWatching =
          options.watch !== false && gateway.configFile
            ? watchConfigFile({
                file: gateway.configFile,
                related: () => gateway.overrideFiles,
                onChange: () => reload('watch'),
                log: log.child({ component: 'reload' }),
              })
            : () => {};
        const graceMs = loaded.config.shutdown.graceMs;
        const shutdown = once(async (signal: string) => {
          log.info({ signal, graceMs }, 'shutting down: finishing the calls in flight');
          // A backstop: whatever hangs in closing, the process ends.
          setTimeout(() => process.exit(1), graceMs + 15_000).unref();
          stopWatching();
          // With stdin closed the client is gone: nobody waits for the answers.
          await gateway.drain(signal === 'stdin-closed' ? 0 : graceMs);
          await gateway.close();
          process.exit(0);
        });
        let signalled = false;
        const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
          if (signalled) {
            // A second signal: the user does not want to wait.
            log.warn({ signal }, 'second signal: exiting now');
            process.exit(signal === 'SIGINT' ? 130 : 143);
          }
          signalled = true;
          void shutdown(signal);
        };
        process.on('SIGINT', () => onSignal('SIGINT'));
        process.on('SIGTERM', () => onSignal('SIGTERM'));
        // SIGHUP ends a process by default; service managers and users send it meaning "reload".
        process.on('SIGHUP', () => {
          log.info({ signal: 'SIGHUP' }, 'SIGHUP received: reloading the config');
          void reload('signal');
        });
        if (http) {
          const host = options.host ?? loaded.config.server.host;
          const port = options.port ?? loaded.config.server.port;
          // A port that cannot be had ends the command: downstream servers already started must not
          // keep the process alive.
          const listener = await gateway.serveHttp(host, port).catch(async (error: unknown) => {
            await gateway.close();
            throw error;
          });
          process.stderr.write(`Aperture listening on ${listener.url}/mcp\n`);
        }
        // Off the critical path: start-up (listening included) runs at V8's defaults, the calls
        // after it tier up sooner.
        void gateway.whenReady().then(
          () => tierUpSoonerShortly(),
          () => {},
        );
        if (options.stdio) {
          await gateway.serveStdio();
          // stdin closed: the client is gone. Keep serving HTTP if it was asked for too.
          if (!http) await shutdown('stdin-closed');
        }
      }),
    );
}

function once<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  let running: Promise<void> | undefined;
  return (...args) => {
    running ??= fn(...args);
    return running;
  };
}
