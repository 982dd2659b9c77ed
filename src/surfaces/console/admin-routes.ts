import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ExecuteCodeRequest, ExecuteCodeResult } from '../../composition/code/code-executor.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import { formatTool, TOOL_FORMATS } from '../../foundation/adapters/tool-formats.js';
import {
  toolSignature,
  toTypeScriptDeclarations,
} from '../../foundation/adapters/typescript-declarations.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import type { ActivityEvent, ActivityFeed } from '../../operations/observe/activity-feed.js';
import type { SurfaceContext } from '../surface-context.js';
import type {
  ActivityEvent as CallEvent,
  ConfigCheck,
  SourceStatus,
  TokenCosts,
  ToolFormats,
} from './admin-contract.js';
import { adminRouter } from './admin-router.js';

/** What the management API reads and operates; the composition root provides it. */
export interface AdminParts {
  /** True when `auth` configures credentials: state-changing and cross-toolset routes need an admin. */
  authEnabled: boolean;
  /** Every remote source's state (what `/readyz` details), secrets masked. */
  sources(): SourceStatus[];
  /** Reconnects the downstream MCP server `name` now; `not_found` when there is none. */
  reconnect(name: string): Promise<void>;
  /** OAuth logins the gateway completes itself (`/oauth/callback`); absent when no server uses OAuth. */
  oauth?: {
    /** Whether server `name` keeps tokens per user; undefined when it has no `oauth`. */
    perUser(name: string): boolean | undefined;
    /** Starts a login for `identity` (`''`: the shared token set): the URL to open, or `authorized`. */
    login(name: string, identity: string): Promise<{ loginUrl: string } | { authorized: true }>;
    /** The identity an authenticated caller's per-user token set is kept under (method and name). */
    owner?(caller: CallerContext): string;
  };
  /** The recent calls and their live stream. */
  activity: ActivityFeed;
  /** The effective config, every secret value masked. */
  config(): unknown;
  /** The config with nothing set: every default, masked alike (absent: the console cannot tell them apart). */
  defaults?(): unknown;
  /** `config validate` on pasted text: `{ valid, warnings }` or `{ valid: false, error }`. */
  checkConfig(text: string, format: 'yaml' | 'json'): ConfigCheck;
  /** What `tools/list` costs an agent for a scope: flat against metatools, in tokens. */
  tokenCosts(scope: ToolScope): Promise<TokenCosts>;
  /** Runs a code-mode program in a scope; absent when code mode is off. */
  executeCode?: (
    scope: ToolScope,
    request: ExecuteCodeRequest,
    caller: CallerContext,
  ) => Promise<ExecuteCodeResult>;
}

/**
 * The management API behind the web console (`/api/admin/…`, docs/DESIGN.md §7), served from its
 * contract (`ADMIN_API`). Reading who one is and running code follow the caller's own scope, like
 * every other surface; anything spanning every toolset (sources, activity, config) or changing
 * state (reconnect) needs an admin identity when auth is on — 403 `forbidden` otherwise, 401
 * without credentials (the auth middleware).
 */
export function adminRoutes(context: SurfaceContext, parts: AdminParts): Hono {
  const { app, serve, requireAdmin } = adminRouter({
    authEnabled: parts.authEnabled,
    maxBodyBytes: context.maxBodyBytes,
  });

  serve({
    adminSession: ({ caller }) => ({
      identity: caller.identity,
      // Without auth everyone on the (loopback) bind operates the gateway.
      admin: !parts.authEnabled || caller.admin === true,
      ...(caller.toolsets ? { toolsets: [...caller.toolsets] } : {}),
      authEnabled: parts.authEnabled,
      codeMode: parts.executeCode !== undefined,
      name: context.info.name,
      version: context.info.version,
    }),

    // One tool in every export format (as `aperture export` and `describe_tool format` give it), and
    // as code mode's TypeScript signature; the caller's scope decides whether the tool exists.
    adminToolFormats: ({ caller, params }) => {
      const tool = context.resolveScope({ caller }).get(params.id);
      const formats: ToolFormats['formats'] = {};
      for (const format of TOOL_FORMATS) {
        const { value, warnings } = formatTool(tool, format);
        formats[format] = { value, warnings: warnings.map(String) };
      }
      formats.typescript = { value: toolSignature(tool).join('\n'), warnings: [] };
      return { tool: tool.id, formats };
    },

    // The token meter: what the caller's own scope costs an agent, listed flat or via the metatools.
    adminTokens: ({ caller, query }) => {
      const toolset = query.toolset || undefined;
      return parts.tokenCosts(
        context.resolveScope({ caller, ...(toolset === undefined ? {} : { toolset }) }),
      );
    },

    adminSources: () => ({ sources: parts.sources() }),

    adminReconnect: async ({ params }) => {
      await parts.reconnect(params.name);
      return { success: true };
    },

    // The console's "Log in" for an OAuth server. A per-user server's login is the caller's own; a
    // shared token set serves every caller, so only an admin may replace it.
    adminOAuthLogin: ({ caller, params: { name } }) => {
      const perUser = parts.oauth?.perUser(name);
      if (!parts.oauth || perUser === undefined) {
        throw new GatewayError('not_found', `No server "${name}" logs in with OAuth`);
      }
      const own = perUser && caller.authMethod !== undefined;
      if (!own) requireAdmin(caller, `Logging in to "${name}" for every caller`);
      return parts.oauth.login(name, own ? (parts.oauth.owner?.(caller) ?? caller.identity) : '');
    },

    adminActivityStats: ({ query }) => ({
      tools: parts.activity.stats(),
      series: parts.activity.series(3_600_000, 60_000, query.tool || undefined),
    }),

    adminActivity: ({ c, query }) => {
      const after = Number(c.req.header('last-event-id') ?? query.after ?? 0) || 0;
      return streamSSE(c, async (stream) => {
        // Subscribe before replaying, so no call that ends in between is lost; the sequence number
        // drops the duplicates.
        let last = after;
        const queue: ActivityEvent[] = [];
        let wake: (() => void) | undefined;
        const unsubscribe = parts.activity.subscribe((event) => {
          queue.push(event);
          wake?.();
        });
        stream.onAbort(() => {
          unsubscribe();
          wake?.();
        });
        queue.unshift(...parts.activity.recent(after));
        try {
          while (!stream.aborted && !stream.closed) {
            const event = queue.shift();
            if (!event) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
              continue;
            }
            if (event.seq <= last) continue;
            last = event.seq;
            // Each event's data is the contract's call (`satisfies`: the feed cannot drift from it).
            const data = JSON.stringify(event satisfies CallEvent);
            await stream.writeSSE({ id: String(event.seq), event: 'call', data });
          }
        } finally {
          unsubscribe();
        }
      });
    },

    adminConfig: () => ({
      config: parts.config(),
      ...(parts.defaults ? { defaults: parts.defaults() } : {}),
    }),

    adminValidateConfig: async ({ body }) => {
      const { text, format } = await body();
      return parts.checkConfig(text, format ?? 'yaml');
    },

    // code_api for the console's editor: the declarations of `tools` in the caller's scope.
    adminCodeApi: ({ caller }) => {
      const tools = context.resolveScope({ caller }).tools();
      return { language: 'typescript', declarations: toTypeScriptDeclarations(tools), tools: tools.length };
    },

    adminExecuteCode: async ({ caller, body }) => {
      const execute = parts.executeCode;
      if (!execute) throw new GatewayError('invalid_request', 'Code mode is disabled on this gateway');
      const scope = context.resolveScope({ caller });
      const { code, language } = await body();
      return execute(scope, { code, ...(language === undefined ? {} : { language }) }, caller);
    },
  });

  app.all('/api/admin/*', (c) => {
    throw new GatewayError('not_found', `No route ${c.req.method} ${c.req.path}`);
  });
  return app;
}
