import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute value of OTLP/JSON, flattened to plain JS. */
export type OtlpValue = string | number | boolean | OtlpValue[] | undefined;

/** One span as received, with its resource's attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, … */
  kind: number;
  attributes: Record<string, OtlpValue>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, OtlpValue>;
}

/** A collector stand-in: accepts OTLP/HTTP JSON trace exports on `/v1/traces` and keeps them. */
export interface OtlpReceiver extends AsyncDisposable {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  spans: ReceivedSpan[];
  /** Headers of every export request. */
  requests: { path: string; headers: IncomingHttpHeaders; body: string }[];
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

function value(v: AnyValue | undefined): OtlpValue {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

function attributes(list: { key: string; value?: AnyValue }[] | undefined): Record<string, OtlpValue> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

interface ExportBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value?: AnyValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: { key: string; value?: AnyValue }[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

/** Starts a receiver on 127.0.0.1 (a free port); closed on dispose. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !req.headers['content-type']?.includes('json')
      ) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as ExportBody;
      for (const rs of parsed.resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributes(s.attributes),
              status: {
                code: s.status?.code ?? 0,
                ...(s.status?.message ? { message: s.status.message } : {}),
              },
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
