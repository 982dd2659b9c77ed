import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { JsonSchema } from '../../foundation/model/tool.js';
import {
  placeholdersOf,
  renderText,
  renderValue,
  type TemplateUse,
  templateUses,
} from '../declared/arg-template.js';
import type { EndpointEntry } from './endpoint-entry.js';

/** Methods whose repetition is harmless: the only ones retried. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** One request as a call sends it. */
export interface EndpointRequest {
  url: URL;
  method: string;
  headers: Headers;
  body?: string;
}

/**
 * An endpoint entry checked and ready to turn arguments into requests: the URL's origin is fixed
 * (placeholders only in path and query: the arguments choose what to ask, never whom), the auth
 * and headers are valid HTTP, and every template use is known with where it sits.
 */
export class EndpointRequestPlan {
  readonly method: string;
  readonly uses: readonly TemplateUse[];
  /** The host the operator configured (reached even when private; see `EndpointGuard`). */
  readonly host: string;
  /** Header names that are this endpoint's credentials (dropped on a redirect to another origin). */
  readonly credentialHeaders: readonly string[];
  /** Query keys given literal values in the config (an `?api_key=…`): dropped likewise. */
  readonly credentialQuery: readonly string[];
  private readonly auth: readonly [name: string, value: string] | undefined;

  constructor(
    private readonly entry: EndpointEntry,
    private readonly label: string,
  ) {
    this.method = entry.method ?? 'GET';
    const probe = (value: string) => entry.url.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, value);
    const first = URL.canParse(probe('a')) ? new URL(probe('a')) : undefined;
    const second = URL.canParse(probe('b')) ? new URL(probe('b')) : undefined;
    if (!first || (first.protocol !== 'http:' && first.protocol !== 'https:')) {
      throw this.bad('url', `"${entry.url}" is not an http(s) URL`);
    }
    if (first.origin !== second?.origin || first.username !== '' || first.password !== '') {
      throw this.bad(
        'url',
        'placeholders may stand in the path and query only, not the scheme, host or port',
      );
    }
    this.host = first.hostname;
    // Literal values only (an `api_key=…` written in the config); a templated one is the caller's.
    const literal = (value: string) => placeholdersOf(value).length === 0;
    const written = new URLSearchParams(splitOnce(entry.url, '?')[1] ?? '');
    this.credentialQuery = [
      ...new Set([
        ...[...written].filter(([, value]) => literal(value)).map(([key]) => key),
        ...Object.entries(entry.query ?? {})
          .filter(([, value]) => literal(value))
          .map(([key]) => key),
      ]),
    ];
    if (entry.body !== undefined && (this.method === 'GET' || this.method === 'HEAD')) {
      throw this.bad('body', `a ${this.method} request has no body`);
    }
    if ((entry.retries ?? 0) > 0 && !IDEMPOTENT.has(this.method)) {
      throw this.bad('retries', `${this.method} is not idempotent: a retried call could act twice`);
    }
    this.auth = authHeader(entry.auth);
    try {
      new Headers(
        Object.fromEntries([...Object.entries(entry.headers ?? {}), ...(this.auth ? [this.auth] : [])]),
      );
    } catch {
      throw this.bad('headers', 'a header name or value HTTP cannot carry');
    }
    this.credentialHeaders = [...Object.keys(entry.headers ?? {}), ...(this.auth ? [this.auth[0]] : [])];
    this.uses = [
      ...templateUses(entry.url, 'url'),
      ...templateUses(entry.query ?? {}, 'query'),
      ...templateUses(entry.headers ?? {}, 'headers'),
      ...(entry.body === undefined ? [] : templateUses(entry.body, 'body')),
    ];
  }

  /** Retries allowed (validated: only for idempotent methods). */
  get retries(): number {
    return this.entry.retries ?? 0;
  }

  /**
   * The schema inferred for a placeholder when the entry has none: a string, required when it
   * sits in the URL's path (there is no URL without it) or is a whole body value.
   */
  static inferred(use: TemplateUse, url: string): { schema: JsonSchema; required: boolean } {
    if (use.key === 'url') {
      const path = url.split('?')[0] ?? '';
      return { schema: { type: 'string' }, required: path.includes(`{${use.name}}`) };
    }
    if (use.key.startsWith('body')) return { schema: {}, required: true };
    return { schema: { type: 'string' }, required: false };
  }

  /** The request for these arguments. */
  build(args: Readonly<Record<string, unknown>>): EndpointRequest {
    const [pathPart, queryPart] = splitOnce(this.entry.url, '?');
    let text = renderText(pathPart, args, encodeURIComponent);
    if (queryPart !== undefined) text += `?${renderText(queryPart, args, encodeURIComponent)}`;
    const url = new URL(text);
    for (const [key, template] of Object.entries(this.entry.query ?? {})) {
      const value = renderValue(template, args);
      if (value !== undefined && value !== null) url.searchParams.append(key, renderText(template, args));
    }
    const headers = new Headers();
    for (const [name, template] of Object.entries(this.entry.headers ?? {})) {
      const value = renderValue(template, args);
      if (value === undefined || value === null) continue;
      try {
        headers.set(name, renderText(template, args));
      } catch {
        throw new GatewayError(
          'validation_input',
          `The arguments make header "${name}" a value HTTP cannot carry`,
          {
            details: { header: name },
          },
        );
      }
    }
    if (this.auth) headers.set(this.auth[0], this.auth[1]);
    if (!headers.has('accept')) headers.set('accept', 'application/json, text/*;q=0.9, */*;q=0.5');
    const request: EndpointRequest = { url, method: this.method, headers };
    if (this.entry.body !== undefined) {
      request.body = JSON.stringify(renderValue(this.entry.body, args) ?? null);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    return request;
  }

  private bad(key: string, reason: string): GatewayError {
    return new GatewayError('config_invalid', `${this.label}.${key}: ${reason}`, {
      details: { key: `${this.label}.${key}` },
    });
  }
}

function authHeader(auth: EndpointEntry['auth']): [string, string] | undefined {
  if (auth === undefined) return undefined;
  if (typeof auth === 'string') return ['authorization', `Bearer ${auth}`];
  if ('bearer' in auth) return ['authorization', `Bearer ${auth.bearer}`];
  return [auth.header, auth.value];
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
