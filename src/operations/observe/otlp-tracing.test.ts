import { ExportResultCode } from '@opentelemetry/core';
import { InMemorySpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { createOtlpTracing, tracesUrl } from './otlp-tracing.js';

const CALL: RunCall = {
  tool: makeTool('ns:tool'),
  args: {},
  ctx: {
    signal: new AbortController().signal,
    callId: 'c',
    caller: { identity: 'me' },
    progress: () => {},
    log: silentLogger,
  },
};

function warnings() {
  const lines: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const log: Logger = {
    ...silentLogger,
    warn: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    child: () => log,
  };
  return { log, lines };
}

describe('tracesUrl', () => {
  it('adds /v1/traces to a base URL and keeps a full traces URL', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otel.example.com/otlp')).toBe('https://otel.example.com/otlp/v1/traces');
    expect(tracesUrl('http://c:4318/v1/traces')).toBe('http://c:4318/v1/traces');
  });
});

describe('createOtlpTracing', () => {
  it('batches spans and exports what is queued on shutdown, with the service resource', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createOtlpTracing({
      endpoint: 'http://127.0.0.1:1',
      serviceName: 'gw',
      serviceVersion: '1.2.3',
      log: silentLogger,
      exporter,
    });
    tracing.calls.start(CALL)({ durationMs: 1 });
    // Batched: nothing exported before the scheduled delay (5 s) or shutdown.
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const spans: string[] = [];
    const original = exporter.export.bind(exporter);
    exporter.export = (batch, done) => {
      spans.push(
        ...batch.map(
          (s) =>
            `${s.name}@${s.resource.attributes['service.name']}/${s.resource.attributes['service.version']}`,
        ),
      );
      original(batch, done);
    };
    await tracing.shutdown();
    expect(spans).toEqual(['tool.exec.ns.tool@gw/1.2.3']);
  });

  it('logs export failures through the gateway logger, not more than once a minute', async () => {
    const { log, lines } = warnings();
    const failing: SpanExporter = {
      export: (_spans, done) =>
        done({ code: ExportResultCode.FAILED, error: new Error('connection refused') }),
      shutdown: async () => {},
    };
    const tracing = createOtlpTracing({
      endpoint: 'http://127.0.0.1:1',
      serviceName: 'gw',
      serviceVersion: '1',
      log,
      exporter: failing,
    });
    tracing.calls.start(CALL)({ durationMs: 1 });
    await tracing.shutdown();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toMatch(/trace export failed/);
    expect(lines[0]?.obj).toMatchObject({ url: 'http://127.0.0.1:1/v1/traces', err: 'connection refused' });
  });

  it('does not wait for an export that never finishes past its timeout', async () => {
    const { log, lines } = warnings();
    const stuck: SpanExporter = { export: () => {}, shutdown: () => new Promise(() => {}) };
    const tracing = createOtlpTracing({
      endpoint: 'http://127.0.0.1:1',
      serviceName: 'gw',
      serviceVersion: '1',
      log,
      exporter: stuck,
      shutdownTimeoutMs: 100,
    });
    tracing.calls.start(CALL)({ durationMs: 1 });
    const started = Date.now();
    await tracing.shutdown();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(lines.map((l) => l.msg)).toContain('trace export did not finish before shutdown');
  });
});
