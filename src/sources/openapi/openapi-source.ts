import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { isValidNamespace } from '../../foundation/model/tool-id.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { integerAtLeast } from '../../foundation/util/option-checks.js';
import { queryNames } from '../net/guarded-fetch.js';
import { NetworkGuard, type ResolveHost } from '../net/network-guard.js';
import { HttpClient } from './http-client.js';
import { UnsupportedOperationError } from './input-schema.js';
import { OpenApiBackend } from './openapi-backend.js';
import { listOperations, type OperationInfo, type ServerObject } from './openapi-document.js';
import { OPENAPI_SOURCE_DEFAULTS, type OpenApiSourceOptions } from './openapi-source-options.js';
import { OperationFilter } from './operation-filter.js';
import { operationToolName, operationToTool } from './operation-to-tool.js';
import type { RequestTarget } from './request-builder.js';
import { loadSpec } from './spec-loader.js';

/** What the app gives a source when it loads it. */
export interface OpenApiSourceContext {
  /** The catalog source id the entries belong to. */
  sourceId: string;
  /** Folder that a relative `spec` path resolves against (the config file's folder). */
  baseDir: string;
  log: Logger;
  /** Host resolution for the network guard; tests inject one. Default: the system resolver. */
  resolveHost?: ResolveHost;
}

/**
 * Loads one `openapi:` source: reads the document, turns each operation kept by
 * `include`/`exclude` into a tool of `options.namespace`, and gives each a backend that calls
 * the service over HTTP through the network guard. Operations it cannot call (multipart or
 * binary bodies) are skipped with a warning; duplicate tool names get `_2`, `_3`… in document order.
 *
 * Throws `config_invalid` ("OpenAPI spec <spec>: <reason>") for bad options or a document that
 * cannot be read, parsed or validated, and `forbidden` when the guard refuses the spec URL; the
 * app marks the source failed and serves the others.
 */
export async function loadOpenApiSource(
  options: OpenApiSourceOptions,
  context: OpenApiSourceContext,
): Promise<CatalogEntry[]> {
  const settings = checkOptions(options);
  const log = context.log.child({ source: context.sourceId });
  const guardOptions = context.resolveHost
    ? { allowPrivateNetwork: settings.allowPrivateNetwork, resolveHost: context.resolveHost }
    : { allowPrivateNetwork: settings.allowPrivateNetwork };
  const guard = new NetworkGuard(guardOptions);
  const client = new HttpClient({
    guard,
    timeoutMs: settings.timeoutMs,
    maxResponseBytes: settings.maxResponseBytes,
    // Whatever the configured headers and URL query keys are called, they are this source's
    // credentials: a redirect to another origin does not get them.
    credentialHeaders: Object.keys(settings.headers),
    credentialQuery: [...queryNames(settings.baseUrl), ...queryNames(options.spec)],
  });
  const { document, location } = await loadSpec(options.spec, { baseDir: context.baseDir, guard, client });

  const filter = new OperationFilter(options.include, options.exclude);
  const targets = new Map<string, RequestTarget>();
  const names = new Set<string>();
  const entries: CatalogEntry[] = [];
  for (const info of listOperations(document)) {
    if (!filter.accepts(info)) continue;
    const name = uniqueName(operationToolName(info), names);
    let generated: ReturnType<typeof operationToTool>;
    try {
      generated = operationToTool(info, name, {
        sourceId: context.sourceId,
        namespace: options.namespace,
        timeoutMs: settings.timeoutMs,
      });
    } catch (error) {
      if (!(error instanceof UnsupportedOperationError)) throw error;
      log.warn(
        { operation: `${info.method.toUpperCase()} ${info.path}`, reason: error.message },
        'operation skipped',
      );
      names.delete(name);
      continue;
    }
    const baseUrl = settings.baseUrl ?? serverUrl(info, location, options.spec);
    let target = targets.get(baseUrl.href);
    if (!target) {
      target = { baseUrl, headers: settings.headers };
      targets.set(baseUrl.href, target);
    }
    entries.push({ tool: generated.tool, backend: new OpenApiBackend(generated.binding, target, client) });
  }
  const unused = filter.unusedIncludes();
  if (unused.length > 0) log.warn({ patterns: unused }, 'include patterns matched no operation');
  log.info({ spec: options.spec, tools: entries.length }, 'OpenAPI source loaded');
  return entries;
}

interface Settings {
  baseUrl: URL | undefined;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxResponseBytes: number;
  allowPrivateNetwork: boolean;
}

/** Validates what the zod schema cannot know (URL and header syntax) and applies defaults. */
function checkOptions(options: OpenApiSourceOptions): Settings {
  const bad = (reason: string) =>
    new GatewayError('config_invalid', `OpenAPI spec ${options.spec}: ${reason}`);
  if (!isValidNamespace(options.namespace)) throw bad(`namespace "${options.namespace}" is not valid`);
  const label = `OpenAPI spec ${options.spec}:`;
  const timeoutMs = integerAtLeast(
    options.timeoutMs ?? OPENAPI_SOURCE_DEFAULTS.timeoutMs,
    1,
    `${label} timeoutMs`,
  );
  const maxResponseBytes = integerAtLeast(
    options.maxResponseBytes ?? OPENAPI_SOURCE_DEFAULTS.maxResponseBytes,
    1,
    `${label} maxResponseBytes`,
  );
  let baseUrl: URL | undefined;
  if (options.baseUrl !== undefined) {
    baseUrl = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
    if (baseUrl?.protocol !== 'http:' && baseUrl?.protocol !== 'https:') {
      throw bad(`baseUrl "${options.baseUrl}" is not an http(s) URL`);
    }
  }
  const headers = { ...options.headers };
  try {
    new Headers(headers);
  } catch {
    throw bad('headers contain a name or value HTTP cannot carry');
  }
  return {
    baseUrl,
    headers: Object.freeze(headers),
    timeoutMs,
    maxResponseBytes,
    allowPrivateNetwork: options.allowPrivateNetwork ?? OPENAPI_SOURCE_DEFAULTS.allowPrivateNetwork,
  };
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/**
 * The first applicable server URL, its variables set to their defaults, resolved against the
 * spec's own URL (OpenAPI: relative server URLs are relative to the document; no servers = `/`).
 */
function serverUrl(info: OperationInfo, location: URL, spec: string): URL {
  const server: ServerObject = info.servers[0] ?? { url: '/' };
  const raw = server.url.replace(
    /\{([^}]+)\}/g,
    (whole, name: string) => server.variables?.[name]?.default ?? whole,
  );
  const url = URL.canParse(raw, location.href) ? new URL(raw, location) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new GatewayError(
      'config_invalid',
      `OpenAPI spec ${spec}: no usable server URL for ${info.method.toUpperCase()} ${info.path} ` +
        `(servers[0].url is "${server.url}"); set baseUrl on this source`,
    );
  }
  return url;
}
