import type { Command } from 'commander';
import { Gateway } from '../app/gateway.js';
import { loadConfig } from '../config/load-config.js';
import { createLogger } from '../operations/create-logger.js';
import { type GlobalOptions, intOption, reportWarnings, runCommand } from './cli-context.js';

interface ServeOptions extends GlobalOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
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
        const log = createLogger({ level: loaded.config.observability.logLevel, mask: loaded.secretValues });
        reportWarnings(loaded.warnings, log, loaded.notices);
        const gateway = await Gateway.create({ loaded, log });
        const http = options.http || !options.stdio;
        const shutdown = once(async (signal: string) => {
          log.info({ signal }, 'shutting down');
          await gateway.close();
          process.exit(0);
        });
        process.on('SIGINT', () => void shutdown('SIGINT'));
        process.on('SIGTERM', () => void shutdown('SIGTERM'));
        if (http) {
          const host = options.host ?? loaded.config.server.host;
          const port = options.port ?? loaded.config.server.port;
          const listener = await gateway.serveHttp(host, port);
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
