import { describe, expect, it } from 'vitest';
import { gatewayFrom } from '../support/in-process-gateway.js';

/**
 * A gateway created for stdio only (`serve --stdio`: `http: false`) builds no Prometheus metrics
 * (nothing could scrape them) and builds its search index just after start rather than before:
 * neither delays a stdio client's first answer.
 */
describe('a gateway that serves stdio only', () => {
  it('builds no metrics; the same config serving HTTP has them', async () => {
    const raw = { observability: { metrics: true } };
    const stdioOnly = await gatewayFrom(raw, { http: false });
    const served = await gatewayFrom(raw);
    try {
      // serveHttp is not what `serve --stdio` does; here it only shows what the gateway built.
      const without = await stdioOnly.serveHttp('127.0.0.1', 0);
      const withMetrics = await served.serveHttp('127.0.0.1', 0);
      expect((await fetch(`${without.url}/metrics`)).status).toBe(404);
      const answer = await fetch(`${withMetrics.url}/metrics`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toMatch(/^# TYPE /m);
      // Tool calls still run (and are logged) without the metrics observer.
      await stdioOnly.scope.run('time:now', {}, { caller: { identity: 't' } });
    } finally {
      await stdioOnly.close();
      await served.close();
    }
  });

  it('answers a search at once, before its index was built in the background', async () => {
    const gateway = await gatewayFrom({}, { http: false });
    try {
      const page = await gateway.scope.search({ query: 'current time in a time zone', limit: 3 });
      expect(page.tools.map((tool) => tool.id)).toContain('time:now');
    } finally {
      // Closed before the background indexing was due: nothing runs after close.
      await gateway.close();
    }
  });
});
