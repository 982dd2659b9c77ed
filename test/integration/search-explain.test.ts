import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { gatewayFrom, servedGateway } from '../support/in-process-gateway.js';

/**
 * `search.explain: true` explains every search's results — what an agent was shown through MCP
 * `search_tools` included — and a REST request still decides for itself with `explain`.
 */
describe('search.explain', () => {
  it('explains the results of MCP search_tools', async () => {
    await using served = await servedGateway({ search: { explain: true } });
    const result = await served.client.callTool({
      name: 'search_tools',
      arguments: { query: 'current time', limit: 2 },
    });
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as { tools: { id: string; explanation?: any }[] };
    expect(page.tools[0]?.id).toBe('time:now');
    expect(page.tools[0]?.explanation).toMatchObject({ strategy: 'bm25', lexical: { rank: 1 } });
    // Each term's part per field is there, and the parts add up to the lexical score.
    const terms = Object.values(page.tools[0]!.explanation.lexical.terms) as Record<string, number>[];
    const total = terms.flatMap((fields) => Object.values(fields)).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(page.tools[0]!.explanation.lexical.score, 6);
  });

  it('leaves search_tools answers unexplained by default', async () => {
    await using served = await servedGateway({});
    const result = await served.client.callTool({
      name: 'search_tools',
      arguments: { query: 'current time' },
    });
    const page = result.structuredContent as { tools: { explanation?: unknown }[] };
    expect(page.tools.length).toBeGreaterThan(0);
    expect(page.tools.every((tool) => tool.explanation === undefined)).toBe(true);
  });

  describe('over REST', () => {
    let gateway: Gateway;
    let base: string;
    beforeAll(async () => {
      gateway = await gatewayFrom({ search: { explain: true } });
      base = (await gateway.serveHttp('127.0.0.1', 0)).url;
    });
    afterAll(() => gateway?.close());
    const explained = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${base}${path}`, init);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { tools: { explanation?: unknown }[] };
      expect(page.tools.length).toBeGreaterThan(0);
      return page.tools.map((tool) => tool.explanation !== undefined);
    };

    it('explains by default, and not when the request says explain=false', async () => {
      expect(await explained('/api/tools?q=current+time')).not.toContain(false);
      expect(await explained('/api/tools?q=current+time&explain=false')).not.toContain(true);
      const post = (body: unknown) => ({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(await explained('/api/search', post({ query: 'current time' }))).not.toContain(false);
      expect(await explained('/api/search', post({ query: 'current time', explain: false }))).not.toContain(
        true,
      );
    });

    it('still refuses an explain that is not a boolean', async () => {
      const response = await fetch(`${base}/api/tools?q=time&explain=maybe`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('validation_input');
    });
  });
});
