import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { OAuthSupport, oauthServers } from '../app/oauth-support.js';
import { openCommandState } from '../app/shared-state.js';
import { loadConfig } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { createLogger } from '../operations/create-logger.js';
import type { TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import { loginWithOAuth } from '../sources/mcp/oauth/oauth-login.js';
import {
  atCommandEnd,
  type GlobalOptions,
  logFormatOf,
  reportWarnings,
  runOneShot,
  stateDirOf,
} from './cli-context.js';
import { loginRefusal } from './login-refusal.js';

interface LoginOptions extends GlobalOptions {
  status?: boolean;
  user?: string;
  open?: boolean;
  json?: boolean;
  stateDir?: string;
}

/**
 * `aperture login SERVER`: logs in to an OAuth-protected server and keeps its tokens (encrypted
 * with `state.tokenKey`) in the state store, where a running gateway finds them. `--user NAME`
 * logs in for one gateway identity (per-user servers). `--status` shows every OAuth server's
 * token sets instead: present or not, expiry, last refresh error.
 */
export function loginCommand(program: Command): void {
  program
    .command('login')
    .description('Log in to an OAuth-protected server (or show token status with --status)')
    .argument('[server]', 'the server to log in to (its key in servers)')
    .option(
      '--status',
      'show, per OAuth server, whether tokens are present, their expiry and the last refresh error',
    )
    .option(
      '--user <identity>',
      'log in for this gateway identity: an API key name or JWT subject, or apikey:NAME / jwt:NAME (servers with oauth.perUser)',
    )
    .option('--no-open', 'print the login URL without opening a browser')
    .option('--json', 'with --status: print JSON')
    .option('--state-dir <dir>', 'the state directory of the gateway (default: as serve chooses it)')
    .action((server: string | undefined, options: LoginOptions, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<LoginOptions>();
        const loaded = await loadConfig({ file: global.config, cwd: process.cwd(), env: process.env });
        const log = createLogger({ level: 'warn', mask: loaded.secretValues, format: logFormatOf(global) });
        reportWarnings(loaded.warnings, log, loaded.notices);
        const { config } = loaded;
        const servers = oauthServers(config);
        if (servers.length === 0) {
          // Nothing to show is an answer, not a mistake: --status says so and succeeds.
          if (options.status) {
            if (options.json) process.stdout.write('{}\n');
            else process.stdout.write('No server in the config uses OAuth (none has an "oauth" block).\n');
            return;
          }
          if (server === undefined) {
            throw new GatewayError(
              'invalid_request',
              'no server in the config uses OAuth (none has an "oauth" block)',
            );
          }
          throw await loginRefusal(server, config, []);
        }
        const stateDir = stateDirOf(options.stateDir);
        const { store: state, close } = await openCommandState(config, loaded.baseDir, {
          ...(stateDir ? { dir: stateDir } : {}),
          log,
        });
        atCommandEnd(close);
        const support = new OAuthSupport(config, log);
        support.bind(state);
        if (options.status) {
          printStatus(support.statuses(), options.json === true);
          return;
        }
        const entry = servers.find(([name]) => name === server);
        if (server === undefined) {
          const names = servers.map(([name]) => name).join(', ');
          throw new GatewayError('invalid_request', `name the server to log in to (${names})`);
        }
        if (!entry) {
          throw await loginRefusal(
            server,
            config,
            servers.map(([name]) => name),
          );
        }
        const [name, settings] = entry;
        if (options.user !== undefined && !settings.oauth.perUser) {
          throw new GatewayError('invalid_request', `--user needs oauth.perUser: true on server "${name}"`);
        }
        // `--user ka` names the API key `ka` when one is configured, else the JWT subject `ka`;
        // `apikey:ka` / `jwt:ka` say which outright.
        const identity = support.userKey(options.user ?? '');
        // A new login starts afresh: old tokens of this identity are not refreshed into it.
        support.store.dropTokens(name, identity);
        await loginWithOAuth({
          serverUrl: settings.url,
          grant: settings.oauth.grant,
          provider: (hooks) => {
            const provider = support.provider(name, {
              identity: () => identity,
              ...(hooks ? { login: hooks } : {}),
            });
            if (!provider) throw new GatewayError('internal', `no OAuth provider for ${name}`);
            return provider;
          },
          onUrl: (url) => {
            process.stdout.write(`Open this URL to log in to ${name}:\n${url}\n`);
            if (options.open !== false) openBrowser(url);
          },
        });
        const status = support.store.statuses(name).find((s) => s.identity === identity);
        process.stdout.write(
          `Logged in to ${name}${identity ? ` as ${identity}` : ''}${status?.expiresAt ? `; the access token expires ${status.expiresAt} and is refreshed by the gateway` : ''}\n`,
        );
      }),
    );
}

function printStatus(statuses: Record<string, TokenStatus[]>, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
    return;
  }
  for (const [server, sets] of Object.entries(statuses)) {
    for (const set of sets) {
      const who = set.identity === '' ? '' : ` (user ${set.identity})`;
      const parts = [set.tokens ? 'tokens present' : 'no tokens'];
      if (set.expiresAt) parts.push(`expires ${set.expiresAt}`);
      if (set.lastRefreshAt) parts.push(`refreshed ${set.lastRefreshAt}`);
      if (set.lastRefreshError) parts.push(`last refresh error: ${set.lastRefreshError}`);
      process.stdout.write(`${server}${who}: ${parts.join('; ')}\n`);
    }
  }
}

/** Opens `url` in the desktop's browser, if there is one; the URL is printed either way. */
function openBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser here: the printed URL is the way.
  }
}
