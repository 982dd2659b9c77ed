import { describe, expect, it } from 'vitest';
import { gatewayFrom } from '../support/in-process-gateway.js';

describe('result cache metrics', () => {
  it('/metrics counts cache hits, misses and bypasses as they happen', async () => {
    const gateway = await gatewayFrom({ cache: {}, observability: { metrics: true } });
    try {
      const listener = await gateway.serveHttp('127.0.0.1', 0);
      const caller = { caller: { identity: 't' } };
      const args = { source: 'A -> B : hi' };
      await gateway.scope.run('plantuml:encode', args, caller); // miss
      await gateway.scope.run('plantuml:encode', args, caller); // hit
      await gateway.scope.run('plantuml:encode', args, caller); // hit
      await gateway.scope.run('time:now', {}, caller); // opted out: bypass
      const text = await (await fetch(`${listener.url}/metrics`)).text();
      const count = (outcome: string) =>
        Number(
          new RegExp(`^tool_cache_lookups_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1],
        );
      expect(count('hit')).toBe(2);
      expect(count('miss')).toBe(1);
      expect(count('bypass')).toBe(1);
      expect(count('eviction')).toBe(0);
    } finally {
      await gateway.close();
    }
  });
});
