import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ExecuteCodeRequest, ExecuteCodeResult } from '../../composition/code/code-executor.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import { formatTool, TOOL_FORMATS } from '../../foundation/adapters/tool-formats.js';
import {
  toolSignature,
  toTypeScriptDeclarations,
} from '../../foundation/adapters/typescript-declarations.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import type { CallerContext } from '../../foundation/tool-backend.js';
import type { ActivityEvent, ActivityFeed } from '../../operations/observe/activity-feed.js';
import { readJsonBody } from '../http/read-json-body.js';
import { requestCaller } from '../http/request-caller.js';
import { restError } from '../rest/rest-errors.js';
import type { SurfaceContext } from '../surface-context.js';

/** What the management API reads and operates; the composition root provides it. */
export interface AdminParts {
  /** True when `auth` configures credentials: state-changing and cross-toolset routes need an admin. */
  authEnabled: boolean;
  /** Every remote source's state (what `/readyz` details), secrets masked. */
  sources(): unknown[];
  /** Reconnects the downstream MCP server `name` now; `not_found` when there is none. */
  reconnect(name: string): Promise<void>;
  /** OAuth logins the gateway completes itself (`/oauth/callback`); absent when no server uses OAuth. */
  oauth?: {
    /** Whether server `name` keeps tokens per user; undefined when it has no `oauth`. */
    perUser(name: string): boolean | undefined;
    /** Starts a login for `identity` (`''`: the shared token set): the URL to open, or `authorized`. */
    login(name: string, identity: string): Promise<{ loginUrl: string } | { authorized: true }>;
  };
  /** The recent calls and their live stream. */
  activity: ActivityFeed;
  /** The effective config, every secret value masked. */
  config(): unknown;
  /** `config validate` on pasted text: `{ valid, warnings }` or `{ valid: false, error }`. */
  checkConfig(text: string, format: 'yaml' | 'json'): unknown;
  /** What `tools/list` costs an agent for a scope: flat against metatools, in tokens. */
  tokenCosts(scope: ToolScope): Promise<{ flat: number; metatools: number; tools: number; counter: string }>;
  /** Runs a code-mode program in a scope; absent when code mode is off. */
  executeCode?: (
    scope: ToolScope,
    request: ExecuteCodeRequest,
    caller: CallerContext,
  ) => Promise<ExecuteCodeResult>;
}

const ANONYMOUS: CallerContext = { identity: 'anonymous' };

/**
 * The management API behind the web console (`/api/admin/…`, docs/DESIGN.md §7). Reading who one
 * is and running code follow the caller's own scope, like every other surface; anything spanning
 * every toolset (sources, activity, config) or changing state (reconnect) needs an admin identity
 * when auth is on — 403 `forbidden` otherwise, 401 without credentials (the auth middleware).
 */
export function adminRoutes(context: SurfaceContext, parts: AdminParts): Hono {
  const app = new Hono();
  const caller = (c: Context): CallerContext => requestCaller(c) ?? ANONYMOUS;
  const requireAdmin = (c: Context, what: string): void => {
    if (parts.authEnabled && caller(c).admin !== true) {
      throw new GatewayError('forbidden', `${what} needs an admin identity (auth.apiKeys[].admin: true)`);
    }
  };

  app.get('/api/admin/session', (c) => {
    const who = caller(c);
    return c.json({
      identity: who.identity,
      // Without auth everyone on the (loopback) bind operates the gateway.
      admin: !parts.authEnabled || who.admin === true,
      ...(who.toolsets ? { toolsets: who.toolsets } : {}),
      authEnabled: parts.authEnabled,
      codeMode: parts.executeCode !== undefined,
      name: context.info.name,
      version: context.info.version,
    });
  });

  // One tool in every export format (as `aperture export` and `describe_tool format` give it), and
  // as code mode's TypeScript signature; the caller's scope decides whether the tool exists.
  app.get('/api/admin/tools/:id/formats', (c) => {
    try {
      const tool = context.resolveScope({ caller: caller(c) }).get(c.req.param('id'));
      const formats: Record<string, { value: unknown; warnings: string[] }> = {};
      for (const format of TOOL_FORMATS) {
        const { value, warnings } = formatTool(tool, format);
        formats[format] = { value, warnings: warnings.map(String) };
      }
      formats.typescript = { value: toolSignature(tool).join('\n'), warnings: [] };
      return c.json({ tool: tool.id, formats });
    } catch (error) {
      return restError(c, error);
    }
  });

  // The token meter: what the caller's own scope costs an agent, listed flat or via the metatools.
  app.get('/api/admin/tokens', async (c) => {
    try {
      const toolset = c.req.query('toolset') || undefined;
      const scope = context.resolveScope({
        caller: caller(c),
        ...(toolset === undefined ? {} : { toolset }),
      });
      return c.json(await parts.tokenCosts(scope));
    } catch (error) {
      return restError(c, error);
    }
  });

  app.get('/api/admin/sources', (c) => {
    try {
      requireAdmin(c, 'The sources of every toolset');
      return c.json({ sources: parts.sources() });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.post('/api/admin/sources/:name/reconnect', async (c) => {
    try {
      requireAdmin(c, 'Reconnecting a server');
      await parts.reconnect(c.req.param('name'));
      return c.json({ success: true });
    } catch (error) {
      return restError(c, error);
    }
  });

  // The console's "Log in" for an OAuth server. A per-user server's login is the caller's own; a
  // shared token set serves every caller, so only an admin may replace it.
  app.post('/api/admin/sources/:name/login', async (c) => {
    try {
      const name = c.req.param('name');
      const perUser = parts.oauth?.perUser(name);
      if (!parts.oauth || perUser === undefined) {
        throw new GatewayError('not_found', `No server "${name}" logs in with OAuth`);
      }
      const who = caller(c);
      const own = perUser && who.authMethod !== undefined;
      if (!own) requireAdmin(c, `Logging in to "${name}" for every caller`);
      return c.json(await parts.oauth.login(name, own ? who.identity : ''));
    } catch (error) {
      return restError(c, error);
    }
  });

  app.get('/api/admin/activity/stats', (c) => {
    try {
      requireAdmin(c, 'The activity of every toolset');
      const tool = c.req.query('tool') || undefined;
      return c.json({
        tools: parts.activity.stats(),
        series: parts.activity.series(3_600_000, 60_000, tool),
      });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.get('/api/admin/activity', (c) => {
    try {
      requireAdmin(c, 'The activity of every toolset');
    } catch (error) {
      return restError(c, error);
    }
    const after = Number(c.req.header('last-event-id') ?? c.req.query('after') ?? 0) || 0;
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
          await stream.writeSSE({ id: String(event.seq), event: 'call', data: JSON.stringify(event) });
        }
      } finally {
        unsubscribe();
      }
    });
  });

  app.get('/api/admin/config', (c) => {
    try {
      requireAdmin(c, 'The configuration');
      return c.json({ config: parts.config() });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.post('/api/admin/config/validate', async (c) => {
    try {
      requireAdmin(c, 'Validating a config');
      const body = await readJsonBody(c, context.maxBodyBytes);
      const { text, format } = (typeof body === 'object' && body !== null ? body : {}) as Record<
        string,
        unknown
      >;
      if (typeof text !== 'string') {
        throw new GatewayError('validation_input', 'Invalid request: /text must be the config as a string', {
          details: { issues: [{ path: '/text', message: 'must be a string' }] },
        });
      }
      if (format !== undefined && format !== 'yaml' && format !== 'json') {
        throw new GatewayError('validation_input', 'Invalid request: /format must be "yaml" or "json"', {
          details: { issues: [{ path: '/format', message: 'must be "yaml" or "json"' }] },
        });
      }
      return c.json(parts.checkConfig(text, format ?? 'yaml'));
    } catch (error) {
      return restError(c, error);
    }
  });

  // code_api for the console's editor: the declarations of `tools` in the caller's scope.
  app.get('/api/admin/code/api', (c) => {
    try {
      const tools = context.resolveScope({ caller: caller(c) }).tools();
      return c.json({
        language: 'typescript',
        declarations: toTypeScriptDeclarations(tools),
        tools: tools.length,
      });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.post('/api/admin/code', async (c) => {
    try {
      const execute = parts.executeCode;
      if (!execute) throw new GatewayError('invalid_request', 'Code mode is disabled on this gateway');
      const who = caller(c);
      const scope = context.resolveScope({ caller: who });
      const body = await readJsonBody(c, context.maxBodyBytes);
      return c.json(await execute(scope, codeRequest(body), who));
    } catch (error) {
      return restError(c, error);
    }
  });

  app.all('/api/admin/*', (c) =>
    restError(c, new GatewayError('not_found', `No route ${c.req.method} ${c.req.path}`)),
  );
  return app;
}

/** The body of `POST /api/admin/code`, checked field by field (the caller's 400 when wrong). */
function codeRequest(body: unknown): ExecuteCodeRequest {
  const fail = (path: string, message: string) =>
    new GatewayError('validation_input', `Invalid code request: ${path} ${message}`, {
      details: { issues: [{ path, message }] },
    });
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw fail('/', 'must be a JSON object');
  const { code, language } = body as Record<string, unknown>;
  if (typeof code !== 'string' || code.length === 0) throw fail('/code', 'must be a non-empty string');
  if (language !== undefined && language !== 'javascript' && language !== 'typescript') {
    throw fail('/language', 'must be "javascript" or "typescript"');
  }
  return { code, ...(language === undefined ? {} : { language }) };
}
