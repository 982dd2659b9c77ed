import { HttpServer } from '../http-server.js';
import { PACKAGE_INFO } from '../package-info.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** HTTP serving: listeners, and their part of a graceful shutdown. */
    http: HttpServer;
  }
}

/**
 * HTTP serving (core, always on; it listens only on `serveHttp`): MCP, REST, A2A, the manifest,
 * health and every feature's routes on one server. Listed last, so it closes first: nothing new
 * arrives while the other features close.
 */
export const http: FeatureFactory = (config, parts) => {
  const { log } = parts.gateway;
  const scope = parts.need('scope');
  const toolsets = parts.need('toolsets');
  const naming = parts.need('naming');
  const catalog = parts.need('catalog');
  const auth = parts.need('auth');
  const first = auth.current;
  const server = new HttpServer({
    config,
    surface: {
      scope,
      resolveScope: toolsets.resolve,
      maxBodyBytes: config.http.maxBodyBytes,
      info: { name: config.server.name, version: PACKAGE_INFO.version },
      // The credentials accepted, as the A2A card and the OpenAPI document declare them.
      ...(first
        ? {
            credentials: {
              apiKeys: config.auth.apiKeys.length > 0,
              // Bearer tokens from an identity provider, verified locally or by introspection.
              jwt: config.auth.jwt !== undefined || config.auth.introspection !== undefined,
            },
          }
        : {}),
      log,
    },
    createSession: parts.need('sessions').create,
    passthrough: parts.need('sessions').listing,
    // Asked on every request: a reload may have swapped it (new API keys).
    authenticator: first
      ? { authenticate: (credentials) => (auth.current ?? first).authenticate(credentials) }
      : undefined,
    hasToolset: (name) => toolsets.has(name),
    flatName: (tool) => naming.nameOf(tool),
    readiness: () => parts.gateway.readiness(),
    onCatalogChange: (listener) => catalog.onChange(listener),
    listen: parts.need('sessions').listen,
    features: () => parts.need('featureHttp')(),
  });
  parts.provide('http', server);
  return { name: 'http', close: () => server.close() };
};
