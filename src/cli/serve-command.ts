import type { Command } from 'commander';
import { Gateway } from '../app/gateway.js';
import { loadConfig } from '../config/load-config.js';
import { createLogger } from '../operations/create-logger.js';
import {
  type GlobalOptions,
  intOption,
  logFormatOf,
  reportWarnings,
  runCommand,
  stateDirOf,
} from './cli-context.js';

interface ServeOptions extends GlobalOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  stateDir?: string;
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
    .addHelpText(
      'after',
      `
Without --config, ./aperture.yaml (or .yml/.json) is used when present, else the built-in catalog.

Examples:
  $ aperture serve                       # http://127.0.0.1:8080/mcp
  $ aperture serve --stdio               # for Claude Desktop, Cursor and other stdio clients
  $ aperture serve --config gw.yaml --port 9000`,
    )
    .action((options: ServeOptions, command: Command) =>
      runCommand(async () => {
        const global = command.optsWithGlobals<ServeOptions>();
        const loaded = await loadConfig({ file: global.config, cwd: process.cwd(), env: process.env });
        const log = createLogger({
          level: loaded.config.observability.logLevel,
          mask: loaded.secretValues,
          format: logFormatOf(global),
        });
        reportWarnings(loaded.warnings, log, loaded.notices);
        const stateDir = stateDirOf(options.stateDir);
        const gateway = await Gateway.create({ loaded, log, ...(stateDir ? { stateDir } : {}) });
        const http = options.http || !options.stdio;
        const graceMs = loaded.config.shutdown.graceMs;
        const shutdown = once(async (signal: string) => {
          log.info({ signal, graceMs }, 'shutting down: finishing the calls in flight');
          // A backstop: whatever hangs in closing, the process ends.
          setTimeout(() => process.exit(1), graceMs + 15_000).unref();
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
        // Until reloading exists, say so and keep serving rather than vanish silently.
        process.on('SIGHUP', () => {
          log.warn({ signal: 'SIGHUP' }, 'SIGHUP received: reload is not supported yet; config unchanged');
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
