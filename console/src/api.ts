import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

// The management API's shapes come from the gateway's own contract (zod schemas, type-only: the
// import vanishes from the bundle), so the console cannot read a field the gateway does not send.
export type {
  ActivityBucket,
  ActivityEvent,
  ActivityStats,
  AdminSession,
  ApprovalList,
  AuditList,
  CodeApi,
  CodeResult,
  ConfigAnswer,
  ConfigCheck,
  InstallPlan,
  LoginStart,
  RegistrySearch,
  SkillList,
  SourceList,
  TokenCosts,
  TokenStatus,
  ToolFormats,
  ToolsetList,
  TrustState,
} from '../../src/surfaces/console/admin-contract.js';

/** The credential the console sends, kept for the browser tab only (`sessionStorage`). */
const CREDENTIAL_KEY = 'aperture.credential';

/** The stored credential, if any. */
export function credential(): string | undefined {
  return sessionStorage.getItem(CREDENTIAL_KEY) ?? undefined;
}

/** Stores (or, with `undefined`, forgets) the credential. */
export function setCredential(value: string | undefined): void {
  if (value === undefined) sessionStorage.removeItem(CREDENTIAL_KEY);
  else sessionStorage.setItem(CREDENTIAL_KEY, value);
}

/** A failed API call: the gateway's error code and message, and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = credential();
  // A JWT goes as a bearer token, anything else as an API key (the gateway accepts either header).
  if (token)
    extra[token.split('.').length === 3 ? 'authorization' : 'x-api-key'] =
      token.split('.').length === 3 ? `Bearer ${token}` : token;
  return extra;
}

/** Calls the gateway's API; a non-2xx answer becomes an `ApiError` with the answer's code. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    // A POST without a body carries the marker header: the gateway refuses POSTs a cross-site
    // form could send (docs/SECURITY.md), and a JSON body or this header is what such a form lacks.
    headers: headers(
      init.body === undefined
        ? (init.method ?? 'GET') === 'GET'
          ? {}
          : { 'x-aperture-request': '1' }
        : { 'content-type': 'application/json' },
    ),
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) {
    const error = (body.error ?? {}) as { code?: string; message?: string; details?: unknown };
    throw new ApiError(
      response.status,
      error.code ?? 'internal',
      error.message ?? response.statusText,
      error.details,
    );
  }
  return body as T;
}

/**
 * Reads a Server-Sent Events stream with the console's credential (`EventSource` cannot send
 * headers), calling `onEvent` with each event's data until `signal` aborts.
 */
export async function readEvents(
  path: string,
  onEvent: (data: string) => void,
  signal: AbortSignal,
  onOpen?: () => void,
): Promise<void> {
  const response = await fetch(path, { headers: headers({ accept: 'text/event-stream' }), signal });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new ApiError(
      response.status,
      body.error?.code ?? 'internal',
      body.error?.message ?? response.statusText,
    );
  }
  onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) onEvent(data);
      end = buffer.indexOf('\n\n');
    }
  }
}

/** A tool summary as `/api/tools` and `/api/search` list it. */
export interface ToolSummary {
  id: string;
  name: string;
  namespace: string;
  title?: string;
  description: string;
  tags?: string[];
  score?: number;
  annotations?: Record<string, unknown>;
}

/** A failure as the pages show it: `code: message` for the gateway's errors. */
export function errorText(error: unknown): string {
  return error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
}

/** A failure as an `ApiError`: the gateway's own, or a network failure (status 0, code `network`). */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'network', String(error));
}

/**
 * What {@link useApi} holds: the last answer, the last failure (as text and as the error, so a page
 * can tell "needs admin" from "down"), whether the first answer is still awaited, and a way to ask
 * again. Exactly one of `loading`, `data` and `failure` describes a fresh path: never loading forever.
 */
export interface ApiState<T> {
  data: T | undefined;
  error: string | undefined;
  failure: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

/**
 * The console's one way to read the gateway: GETs `path` when it changes (nothing while it is
 * undefined), and again every `refreshMs` when set. An answer for a path no longer asked for is
 * dropped, so a fast click never shows the previous tool's data; a new path starts empty, a
 * reload keeps the last answer on screen until the next one arrives.
 */
export function useApi<T>(path: string | undefined, options: { refreshMs?: number } = {}): ApiState<T> {
  const [data, setData] = useState<T | undefined>();
  const [failure, setFailure] = useState<ApiError | undefined>();
  const current = useRef(path);
  current.current = path;
  const reload = useCallback(async () => {
    if (path === undefined) return;
    try {
      const answer = await api<T>(path);
      if (current.current !== path) return;
      setData(answer);
      setFailure(undefined);
    } catch (e) {
      if (current.current === path) setFailure(asApiError(e));
    }
  }, [path]);
  useEffect(() => {
    setData(undefined);
    setFailure(undefined);
    void reload();
  }, [reload]);
  useEffect(() => {
    if (options.refreshMs === undefined) return undefined;
    const timer = setInterval(() => void reload(), options.refreshMs);
    return () => clearInterval(timer);
  }, [reload, options.refreshMs]);
  return {
    data,
    failure,
    error: failure && errorText(failure),
    loading: path !== undefined && data === undefined && failure === undefined,
    reload,
  };
}
