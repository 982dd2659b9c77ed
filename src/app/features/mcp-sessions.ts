import type { Logger } from '../../foundation/logger.js';
import { connectorTools } from '../../surfaces/mcp/connector-tools.js';
import type { ExposureCache } from '../../surfaces/mcp/exposure.js';
import { InputRounds } from '../../surfaces/mcp/input-rounds.js';
import { createMcpSessionServer } from '../../surfaces/mcp/mcp-session-server.js';
import type { PassthroughServer } from '../../surfaces/mcp/passthrough.js';
import type { McpSessionFactory } from '../../surfaces/mcp/session-factory.js';
import { PACKAGE_INFO } from '../package-info.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    sessions: {
      /** A fresh MCP server per client session, serving the session's scope to its caller. */
      create: McpSessionFactory;
      /** Input rounds of 2026-07-28 clients: one for every session, as each round is a request. */
      inputRounds: InputRounds;
    };
  }
}

/**
 * MCP sessions (core, always on): a fresh MCP server per client session (docs/DESIGN.md: never
 * share one across clients), for stdio and every HTTP transport alike. What sessions share — flat
 * names, exposure views, input rounds, caching hints, one logger — is made once here.
 */
export const mcpSessions: FeatureFactory = (_config, parts) => {
  const { calls, validator, maskSecrets } = parts.gateway;
  const inputRounds = new InputRounds();
  /** Exposure views by scope, shared by every session (2026-07-28 requests each have one). */
  const exposureCache: ExposureCache = new WeakMap();
  /** One child logger for every session: a 2026-07-28 request makes a session server of its own. */
  let log: Logger | undefined;
  /** Downstream MCP servers with their prefix setting, for flat exposure's passthrough. */
  const passthrough = (): PassthroughServer[] => {
    const servers = parts.config().servers;
    return parts.need('remote').servers.map((server) => ({
      server,
      prefix: servers[server.name]?.prefix !== false,
    }));
  };
  const create: McpSessionFactory = ({ caller, scope }) => {
    const config = parts.config();
    const code = parts.need('code');
    const toolsets = parts.need('toolsets');
    const skills = parts.need('skills').current;
    log ??= parts.log.child({ component: 'mcp' });
    return createMcpSessionServer({
      scope,
      ...(code ? { code } : {}),
      catalog: parts.need('catalog'),
      validator,
      exposure: { ...config.exposure, counter: parts.need('exposure').auto() },
      serverInfo: { name: config.server.name, version: PACKAGE_INFO.version },
      caller,
      ...(toolsets.size > 0 ? { toolsets: toolsets.viewFor(caller) } : {}),
      // Toolsets scope tools; downstream resources and prompts are relayed to unconfined sessions only.
      ...(scope === parts.need('scope') ? { passthrough: passthrough() } : {}),
      naming: parts.need('naming'),
      maskText: maskSecrets,
      ...(skills ? { skills } : {}),
      ...(config.exposure.connectorTools
        ? { extraTools: connectorTools(() => parts.need('http').baseUrl) }
        : {}),
      calls,
      inputRounds,
      cacheHints: parts.need('cacheHints'),
      exposureCache,
      log,
    });
  };
  parts.provide('sessions', { create, inputRounds });
  return { name: 'mcp-sessions' };
};
