import { GatewayError } from '../../foundation/model/gateway-error.js';
import { isRecord } from '../../foundation/util/is-record.js';
import type { OperationBinding, ParameterBinding } from './operation-binding.js';

/** An HTTP request ready for `fetch`. */
export interface BuiltRequest {
  url: URL;
  method: string;
  headers: Headers;
  body?: string;
}

/** Where requests go and what every request carries. */
export interface RequestTarget {
  baseUrl: URL;
  /** The source's own headers; they win over header parameters of the same name. */
  headers: Readonly<Record<string, string>>;
}

const DEFAULT_ACCEPT = 'application/json, */*;q=0.8';

/**
 * Turns validated tool arguments into an HTTP request, following OpenAPI's serialisation rules:
 * path parameters `simple` (or `label`/`matrix`) and percent-encoded; query parameters `form`
 * with `explode: true` by default (arrays as repeated keys, objects as one key per property),
 * `explode: false` (comma-joined), `spaceDelimited`, `pipeDelimited`, `deepObject`; header
 * parameters `simple`; cookie parameters in one `Cookie` header; the body as JSON, form fields or
 * text. Missing optional arguments are left out.
 */
export function buildRequest(
  binding: OperationBinding,
  args: Readonly<Record<string, unknown>>,
  target: RequestTarget,
): BuiltRequest {
  let path = binding.path;
  const query: string[] = [];
  const headers = new Headers();
  const cookies: string[] = [];

  for (const p of binding.parameters) {
    const raw = args[p.argName];
    if (raw === undefined || raw === null) {
      if (p.in === 'path') {
        throw new GatewayError('validation_input', `Missing path parameter "${p.argName}"`, {
          details: { path: `/${p.argName}` },
        });
      }
      continue;
    }
    const value = p.json ? JSON.stringify(raw) : raw;
    if (p.in === 'path') path = path.split(`{${p.name}}`).join(serializePath(p, value));
    else if (p.in === 'query') query.push(...serializeQuery(p, value));
    else if (p.in === 'header') setHeader(headers, p.name, serializeSimple(value, p.explode, false));
    else cookies.push(`${p.name}=${encodeURIComponent(serializeSimple(value, false, false))}`);
  }

  refuseDotSegments(path, binding.path);
  const url = new URL(target.baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  if (query.length > 0) {
    const existing = url.search.replace(/^\?/, '');
    url.search = [existing, ...query].filter(Boolean).join('&');
  }

  for (const [name, value] of Object.entries(target.headers)) setHeader(headers, name, value);
  if (cookies.length > 0) {
    const existing = headers.get('cookie');
    headers.set('cookie', [existing, ...cookies].filter(Boolean).join('; '));
  }
  if (!headers.has('accept')) headers.set('accept', DEFAULT_ACCEPT);

  const request: BuiltRequest = { url, method: binding.method.toUpperCase(), headers };
  const bodyValue = binding.body ? args[binding.body.argName] : undefined;
  if (binding.body && bodyValue !== undefined) {
    headers.set('content-type', binding.body.mediaType);
    if (binding.body.encoding === 'json') request.body = JSON.stringify(bodyValue);
    else if (binding.body.encoding === 'form') request.body = formBody(bodyValue);
    else request.body = typeof bodyValue === 'string' ? bodyValue : JSON.stringify(bodyValue);
  }
  return request;
}

// `.` and `..` (and their percent-encoded forms, which URL parsers treat alike) as whole segments.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Refuses a path whose arguments produced a `.` or `..` segment: `encodeURIComponent` leaves dots
 * alone, and the URL parser would resolve them, so `petId=".."` would walk up the upstream path
 * (`/v1/pets/..` → `/v1/`). The caller's input is at fault, hence `validation_input`. Only
 * segments the template did not already contain are judged (the spec's own path is trusted).
 */
function refuseDotSegments(path: string, template: string): void {
  const fixed = new Set(template.split('/').filter((segment) => DOT_SEGMENT.test(segment)));
  const bad = path.split('/').find((segment) => DOT_SEGMENT.test(segment) && !fixed.has(segment));
  if (bad === undefined) return;
  throw new GatewayError(
    'validation_input',
    `Path parameters must not make a "${bad}" path segment (it would change the upstream path)`,
    { details: { path: template, segment: bad } },
  );
}

/** `simple`, `label` or `matrix` style, percent-encoded for a path segment. */
function serializePath(p: ParameterBinding, value: unknown): string {
  if (p.style === 'label') {
    const sep = p.explode ? '.' : ',';
    return `.${serializeSimple(value, p.explode, true).split(',').join(sep)}`;
  }
  if (p.style === 'matrix') {
    const name = encodeURIComponent(p.name);
    if (Array.isArray(value) && p.explode) return value.map((v) => `;${name}=${encode(v)}`).join('');
    if (isRecord(value) && p.explode) {
      return Object.entries(value)
        .map(([k, v]) => `;${encodeURIComponent(k)}=${encode(v)}`)
        .join('');
    }
    return `;${name}=${serializeSimple(value, false, true)}`;
  }
  return serializeSimple(value, p.explode, true);
}

/** `simple` style: `a,b,c` for arrays, `k,v,k2,v2` (or `k=v,k2=v2` exploded) for objects. */
function serializeSimple(value: unknown, explode: boolean, percentEncode: boolean): string {
  const enc = percentEncode ? encode : scalar;
  if (Array.isArray(value)) return value.map(enc).join(',');
  if (isRecord(value)) {
    const entries = Object.entries(value);
    return explode
      ? entries.map(([k, v]) => `${enc(k)}=${enc(v)}`).join(',')
      : entries.flatMap(([k, v]) => [enc(k), enc(v)]).join(',');
  }
  return enc(value);
}

/** Encoded `key=value` pairs of one query parameter. */
function serializeQuery(p: ParameterBinding, value: unknown): string[] {
  const name = encodeURIComponent(p.name);
  if (p.style === 'deepObject' && isRecord(value)) {
    return Object.entries(value).map(([k, v]) => `${name}[${encodeURIComponent(k)}]=${encode(v)}`);
  }
  if (Array.isArray(value)) {
    if (p.explode) return value.map((v) => `${name}=${encode(v)}`);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${value.map(encode).join(sep)}`];
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (p.explode) return entries.map(([k, v]) => `${encodeURIComponent(k)}=${encode(v)}`);
    return [`${name}=${entries.flatMap(([k, v]) => [encode(k), encode(v)]).join(',')}`];
  }
  return [`${name}=${encode(value)}`];
}

function formBody(value: unknown): string {
  if (!isRecord(value)) return scalar(value);
  const form = new URLSearchParams();
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined || field === null) continue;
    if (Array.isArray(field)) for (const item of field) form.append(key, scalar(item));
    else form.append(key, scalar(field));
  }
  return form.toString();
}

function setHeader(headers: Headers, name: string, value: string): void {
  try {
    headers.set(name, value);
  } catch (error) {
    // Headers refuses CR/LF and other bytes that would split or corrupt the request.
    throw new GatewayError('validation_input', `Header "${name}" has a value HTTP cannot carry`, {
      cause: error,
      details: { header: name },
    });
  }
}

/** A value as text: strings as they are, nested objects as JSON. */
function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function encode(value: unknown): string {
  return encodeURIComponent(scalar(value));
}
