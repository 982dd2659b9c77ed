import { AggregationTemporality, InMemoryMetricExporter } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { recordEgress } from '../../foundation/sandbox/egress-tally.js';
import { createOtelMetrics } from './otel-metrics.js';

/** The data points exported under `name`, as (attributes, value) pairs. */
function pointsOf(exporter: InMemoryMetricExporter, name: string): { attributes: object; value: unknown }[] {
  const metrics = exporter
    .getMetrics()
    .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
    .filter((metric) => metric.descriptor.name === name);
  return (metrics.at(-1)?.dataPoints ?? []).map((point) => ({
    attributes: point.attributes,
    value: point.value,
  }));
}

describe('createOtelMetrics', () => {
  it('exports the server queues and the sandbox egress under the names /metrics uses', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const metrics = createOtelMetrics({ exporter, serviceName: 'test', serviceVersion: '0' });
    metrics.queues.depth('slow', 3);
    metrics.queues.waited('slow', 0.2, false);
    metrics.queues.waited('slow', 10, true);
    recordEgress('otel-test-server', 'api.example.com:443', 'refused');
    await metrics.flush();

    expect(pointsOf(exporter, 'server_queue_depth')).toEqual([{ attributes: { server: 'slow' }, value: 3 }]);
    const waits = pointsOf(exporter, 'server_queue_wait_seconds');
    expect(waits.map((point) => point.attributes)).toEqual([
      { server: 'slow', outcome: 'run' },
      { server: 'slow', outcome: 'rate_limited' },
    ]);
    expect(waits[1]?.value).toMatchObject({ count: 1, sum: 10 });
    expect(pointsOf(exporter, 'sandbox_egress_total')).toContainEqual({
      attributes: { server: 'otel-test-server', host: 'api.example.com:443', decision: 'refused' },
      value: 1,
    });
    await metrics.shutdown();
  });
});
