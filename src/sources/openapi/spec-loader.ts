import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { NetworkGuard } from '../net/network-guard.js';
import type { HttpClient } from './http-client.js';
import type { OpenApiDocument } from './openapi-document.js';
import { restoreRelativeServers } from './restore-relative-servers.js';

/** A parsed, validated and dereferenced document, and where it came from. */
export interface LoadedSpec {
  document: OpenApiDocument;
  /** The spec's URL (`file:` for files): relative server URLs resolve against it. */
  location: URL;
}

export interface SpecLoaderOptions {
  /** Folder that relative spec paths resolve against. */
  baseDir: string;
  guard: NetworkGuard;
  /** Downloads the spec and the remote documents it references, through the guard. */
  client: HttpClient;
}

const SPEC_ACCEPT = 'application/json, application/yaml, text/yaml, */*;q=0.8';

/**
 * Reads an OpenAPI 3.0/3.1 document (YAML or JSON, file or http(s) URL) with swagger-parser:
 * parsed, validated against the OpenAPI schema, every `$ref` resolved (circular ones kept as
 * shared objects). Remote documents — the spec and any document it references — are downloaded
 * only through the network guard; a remote spec may not reference local files (`file:` refs
 * would let a hostile document read the gateway's disk).
 *
 * Throws `config_invalid` ("OpenAPI spec <spec>: <reason>") for a document that cannot be read,
 * parsed or validated, `forbidden` for a spec URL the guard refuses.
 */
export async function loadSpec(spec: string, options: SpecLoaderOptions): Promise<LoadedSpec> {
  const location = specLocation(spec, options.baseDir);
  const remote = location.protocol !== 'file:';
  if (remote) {
    try {
      await options.guard.check(location);
    } catch (error) {
      throw prefixed(spec, error);
    }
  }
  // The root document is the first one read; its text is needed to undo a parser rewrite.
  let rootText: string | undefined;
  const parserOptions: SwaggerParser.Options = {
    resolve: {
      // `true` would replace the built-in file resolver, not enable it: only ever pass `false`.
      ...(remote ? { file: false } : {}),
      // The built-in HTTP resolver has its own, name-based guard; ours resolves DNS and pins.
      http: false,
      guardedHttp: {
        order: 1,
        canRead: /^https?:\/\//i,
        read: async (file: SwaggerParser.FileInfo) => {
          const bytes = await download(file.url, options.client);
          rootText ??= bytes.toString('utf8');
          return bytes;
        },
      },
    },
    dereference: { circular: true },
  };
  let api: unknown;
  try {
    api = await new SwaggerParser().validate(remote ? location.href : fileURLToPath(location), parserOptions);
  } catch (error) {
    throw invalid(spec, reasonOf(error), error);
  }
  const document = api as OpenApiDocument & { swagger?: unknown };
  if (document.swagger !== undefined || typeof document.openapi !== 'string') {
    throw invalid(spec, 'only OpenAPI 3.0 and 3.1 documents are supported (convert Swagger 2.0 first)');
  }
  if (remote && rootText !== undefined) restoreRelativeServers(document, rootText);
  return { document, location };
}

/** `http(s)://…` and `file://…` as they are; anything else is a path relative to `baseDir`. */
function specLocation(spec: string, baseDir: string): URL {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(spec)) {
    let url: URL;
    try {
      url = new URL(spec);
    } catch (error) {
      throw invalid(spec, 'not a valid URL', error);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'file:') {
      throw new GatewayError('forbidden', `OpenAPI spec ${spec}: scheme "${url.protocol}" is not allowed`, {
        details: { spec },
      });
    }
    return url;
  }
  return pathToFileURL(path.resolve(baseDir, spec));
}

async function download(url: string, client: HttpClient): Promise<Buffer> {
  const response = await client.send({
    url: new URL(url),
    method: 'GET',
    headers: new Headers({ accept: SPEC_ACCEPT }),
  });
  if (response.status < 200 || response.status > 299) {
    throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  }
  return Buffer.from(response.body);
}

function prefixed(spec: string, error: unknown): GatewayError {
  if (error instanceof GatewayError) {
    return error.with({
      message: `OpenAPI spec ${spec}: ${error.message}`,
      details: { ...error.details, spec },
      cause: error,
    });
  }
  return invalid(spec, reasonOf(error), error);
}

function invalid(spec: string, reason: string, cause?: unknown): GatewayError {
  return new GatewayError('config_invalid', `OpenAPI spec ${spec}: ${reason}`, {
    details: { spec },
    cause,
  });
}

/** The parser's message on one line, bounded (schema validation lists every failed rule). */
function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // Drop the YAML parser's code frame (`3 |   version: [` and its `---^` marker line).
  const lines = text.split('\n').filter((line) => !/^\s*(\d+ \||-*\^)/.test(line));
  const flat = lines.join(' ').replace(/\s+/g, ' ').trim();
  return flat.length > 1000 ? `${flat.slice(0, 1000)}…` : flat || 'unreadable document';
}
