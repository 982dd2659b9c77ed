import { describe, expect, it, vi } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool, ToolResult } from '../../foundation/model/tool.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import type { CacheStore } from './cache-store.js';
import { InMemoryCacheStore } from './in-memory-cache-store.js';
import { type CacheLookupEvent, resultCache } from './result-cache.js';

const readOnly = makeTool('ns:read', { annotations: { readOnlyHint: true } });
const sideEffect = makeTool('ns:write');

function call(
  tool: Tool,
  args: Record<string, unknown>,
  caller: CallerContext = { identity: 'local' },
  signal = new AbortController().signal,
): RunCall {
  return {
    tool,
    args,
    ctx: { signal, callId: 'c', caller, progress: () => {}, log: silentLogger },
  };
}

/** A backend stand-in that counts its runs and answers with the run number. */
function counter() {
  let runs = 0;
  const next = async (): Promise<ToolResult> => {
    runs++;
    return { content: [{ type: 'text', text: `run ${runs}` }], structuredContent: { runs } };
  };
  return { next, runs: () => runs };
}

/** Lets background store writes land. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('resultCache', () => {
  it('answers a repeated call of a read-only tool from the cache, whatever the argument order', async () => {
    const cache = resultCache();
    const backend = counter();
    const first = await cache.middleware(call(readOnly, { a: 1, b: 2 }), backend.next);
    await settle();
    const second = await cache.middleware(call(readOnly, { b: 2, a: 1 }), backend.next);
    expect(backend.runs()).toBe(1);
    expect(second).toEqual(first);
    expect(second).not.toBe(first); // a copy: no caller can change what the next one gets
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, stores: 1, entries: 1 });
  });

  it('runs a tool with side effects every time and never stores it', async () => {
    const cache = resultCache();
    const backend = counter();
    await cache.middleware(call(sideEffect, {}), backend.next);
    await settle();
    await cache.middleware(call(sideEffect, {}), backend.next);
    expect(backend.runs()).toBe(2);
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 0, bypassed: 2, entries: 0 });
  });

  it('keeps scopes apart', async () => {
    const cache = resultCache();
    const backend = counter();
    await cache.middleware(call(readOnly, {}, { identity: 'a', toolset: 'x' }), backend.next);
    await settle();
    await cache.middleware(call(readOnly, {}, { identity: 'b', toolset: 'y' }), backend.next);
    await settle();
    await cache.middleware(call(readOnly, {}, { identity: 'c', toolset: 'x' }), backend.next);
    expect(backend.runs()).toBe(2);
  });

  it('with partition identity, keeps identities apart within a scope', async () => {
    const cache = resultCache({ partition: 'identity' });
    const backend = counter();
    await cache.middleware(call(readOnly, {}, { identity: 'a', toolset: 'x' }), backend.next);
    await settle();
    await cache.middleware(call(readOnly, {}, { identity: 'b', toolset: 'x' }), backend.next);
    expect(backend.runs()).toBe(2);
  });

  it('runs the tool again once the time to live has passed', async () => {
    let t = 0;
    const cache = resultCache({ ttlMs: 1000, store: new InMemoryCacheStore({ now: () => t }) });
    const backend = counter();
    await cache.middleware(call(readOnly, {}), backend.next);
    await settle();
    t = 999;
    await cache.middleware(call(readOnly, {}), backend.next);
    expect(backend.runs()).toBe(1);
    t = 1000;
    await cache.middleware(call(readOnly, {}), backend.next);
    expect(backend.runs()).toBe(2);
  });

  it('never stores a failure: the next call runs the tool again', async () => {
    const cache = resultCache();
    let runs = 0;
    const failing = async (): Promise<ToolResult> => {
      runs++;
      throw new GatewayError('backend_unavailable', 'down');
    };
    await expect(cache.middleware(call(readOnly, {}), failing)).rejects.toThrow('down');
    await settle();
    await expect(cache.middleware(call(readOnly, {}), failing)).rejects.toThrow('down');
    expect(runs).toBe(2);
    const isError = async (): Promise<ToolResult> => ({ isError: true, content: [] });
    await cache.middleware(call(readOnly, { e: 1 }), isError);
    await settle();
    expect(cache.stats().entries).toBe(0);
  });

  it('does not store the result of a call whose signal aborted', async () => {
    const cache = resultCache();
    const controller = new AbortController();
    const backend = counter();
    await cache.middleware(call(readOnly, {}, { identity: 'l' }, controller.signal), async () => {
      controller.abort();
      return backend.next();
    });
    await settle();
    expect(cache.stats().entries).toBe(0);
  });

  it('does not store a result larger than maxEntryBytes', async () => {
    const cache = resultCache({ maxEntryBytes: 100 });
    const big = async (): Promise<ToolResult> => ({ content: [{ type: 'text', text: 'x'.repeat(200) }] });
    await cache.middleware(call(readOnly, {}), big);
    await settle();
    expect(cache.stats().entries).toBe(0);
  });

  it('bounds the default store by maxEntries', async () => {
    const cache = resultCache({ maxEntries: 2 });
    const backend = counter();
    for (const n of [1, 2, 3]) {
      await cache.middleware(call(readOnly, { n }), backend.next);
      await settle();
    }
    expect(cache.stats()).toMatchObject({ entries: 2, evictions: 1 });
  });

  it('reports every lookup to onLookup', async () => {
    const events: CacheLookupEvent[] = [];
    const cache = resultCache({ onLookup: (event) => events.push(event) });
    const backend = counter();
    await cache.middleware(call(readOnly, {}), backend.next);
    await settle();
    await cache.middleware(call(readOnly, {}), backend.next);
    await cache.middleware(call(sideEffect, {}), backend.next);
    expect(events).toEqual([
      { toolId: 'ns:read', outcome: 'miss' },
      { toolId: 'ns:read', outcome: 'hit' },
    ]);
  });

  it('runs the tool when the store fails, and logs', async () => {
    const warn = vi.fn();
    const broken: CacheStore = {
      get: async () => {
        throw new Error('store down');
      },
      set: async () => {
        throw new Error('store down');
      },
      delete: async () => false,
      deletePrefix: async () => 0,
      clear: async () => {},
      stats: () => ({ entries: 0, bytes: 0, evictions: 0, expirations: 0 }),
    };
    const cache = resultCache({ store: broken, log: { ...silentLogger, warn } });
    const backend = counter();
    const result = await cache.middleware(call(readOnly, {}), backend.next);
    await settle();
    expect(result.structuredContent).toEqual({ runs: 1 });
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('has stored a result when the call returns (the next call may reach another replica sharing the store)', async () => {
    const shared = new InMemoryCacheStore();
    let release: () => void = () => {};
    // A store whose writes land late, as over a network.
    const slow: CacheStore = {
      get: (key) => shared.get(key),
      set: async (key, value, ttlMs) => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return shared.set(key, value, ttlMs);
      },
      delete: (key) => shared.delete(key),
      deletePrefix: (prefix) => shared.deletePrefix(prefix),
      clear: () => shared.clear(),
      stats: () => shared.stats(),
    };
    const one = resultCache({ store: slow });
    const other = resultCache({ store: shared });
    const backend = counter();
    let answered = false;
    const first = one.middleware(call(readOnly, { a: 1 }), backend.next).then((result) => {
      answered = true;
      return result;
    });
    await settle();
    expect(answered).toBe(false);
    release();
    await first;
    // Another replica's cache reads it at once: no second run.
    await other.middleware(call(readOnly, { a: 1 }), backend.next);
    expect(backend.runs()).toBe(1);
  });

  it('refuses options it cannot honour', () => {
    expect(optionFailure(() => resultCache({ ttlMs: 0 }))).toMatch(/ttlMs/);
    expect(optionFailure(() => resultCache({ partition: 'nobody' as never }))).toMatch(/partition/);
  });
});

describe('resultCache per tool', () => {
  it("honours a tool's own time to live over the default", async () => {
    const clock = { t: 1_000_000 };
    const store = new InMemoryCacheStore({ now: () => clock.t });
    const other = makeTool('ns:other', { annotations: { readOnlyHint: true } });
    const cache = resultCache({
      store,
      ttlMs: 60_000,
      toolSettings: (tool) => (tool.id === 'ns:read' ? { ttlMs: 1000 } : undefined),
    });
    const backend = counter();
    await cache.middleware(call(readOnly, {}), backend.next);
    await cache.middleware(call(other, {}), backend.next);
    await settle();
    clock.t += 1500; // past the tool's own 1 s, within the default minute
    await cache.middleware(call(readOnly, {}), backend.next);
    await cache.middleware(call(other, {}), backend.next);
    expect(backend.runs()).toBe(3);
    expect(cache.stats().byTool.get('ns:read')).toEqual({ hits: 0, misses: 2 });
    expect(cache.stats().byTool.get('ns:other')).toEqual({ hits: 1, misses: 1 });
  });

  it('caches or bypasses a tool as its settings say, over the annotations', async () => {
    const cache = resultCache({
      toolSettings: (tool) => ({ enabled: tool.id === 'ns:write' }),
    });
    const backend = counter();
    for (let i = 0; i < 2; i++) {
      await cache.middleware(call(sideEffect, {}), backend.next);
      await cache.middleware(call(readOnly, {}), backend.next);
      await settle();
    }
    // ns:write ran once (cached), ns:read twice (bypassed).
    expect(backend.runs()).toBe(3);
    expect(cache.stats()).toMatchObject({ hits: 1, bypassed: 2 });
  });

  it("drops one tool's entries, a namespace's, or all", async () => {
    const cache = resultCache();
    const tools = ['ns:read', 'ns:read2', 'other:read'].map((id) =>
      makeTool(id, { annotations: { readOnlyHint: true } }),
    );
    const backend = counter();
    const fill = async () => {
      for (const tool of tools) await cache.middleware(call(tool, { q: 1 }), backend.next);
      await settle();
    };
    await fill();
    expect(await cache.invalidate({ tool: 'ns:read' })).toBe(1);
    expect(cache.stats().entries).toBe(2);
    expect(await cache.invalidate({ namespace: 'ns' })).toBe(1);
    expect(cache.stats().entries).toBe(1);
    await fill();
    expect(await cache.invalidate()).toBe(-1);
    expect(cache.stats().entries).toBe(0);
  });
});
