import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../config/config-schema.js';
import { parseConfigValue } from '../../config/load-config.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import { growingMasker } from '../../operations/secrets/growing-masker.js';
import {
  type Feature,
  type FeatureFactory,
  GatewayParts,
  MIDDLEWARE_SLOTS,
  type MiddlewareSlot,
} from './feature.js';
import { FeatureList } from './feature-list.js';
import { FEATURES } from './index.js';

function gatewayParts(config = DEFAULT_CONFIG): GatewayParts {
  return new GatewayParts({
    log: silentLogger,
    loaded: () => ({ config, baseDir: process.cwd(), warnings: [] }),
    maskSecrets: growingMasker([]),
    calls: new InFlightCalls(),
    validator: new SchemaValidator(),
    reload: () => Promise.reject(new Error('no reload here')),
    readiness: () => ({ ready: true }),
    options: { http: false },
  });
}

/** A feature that records each step of its lifecycle in `events`. */
function recorded(name: string, events: string[], extra: Partial<Feature> = {}): FeatureFactory {
  return () => {
    events.push(`make ${name}`);
    return {
      name,
      start: () => {
        events.push(`start ${name}`);
      },
      close: () => {
        events.push(`close ${name}`);
      },
      ...extra,
    };
  };
}

/** A middleware that records its slot's name on the way in. */
function marking(slot: string, seen: string[]): RunMiddleware {
  return (_call, next) => {
    seen.push(slot);
    return next();
  };
}

describe('FeatureList', () => {
  it('makes and starts features in list order and closes them in reverse', async () => {
    const events: string[] = [];
    const list = await FeatureList.create(
      [recorded('a', events), recorded('b', events), recorded('c', events)],
      DEFAULT_CONFIG,
      gatewayParts(),
    );
    await list.start();
    await list.close();
    expect(events).toEqual([
      'make a',
      'make b',
      'make c',
      'start a',
      'start b',
      'start c',
      'close c',
      'close b',
      'close a',
    ]);
  });

  it('closes every feature made, in reverse, when one fails to start, and rethrows', async () => {
    const events: string[] = [];
    const failing = recorded('b', events, {
      start: () => {
        events.push('start b');
        throw new Error('b cannot start');
      },
    });
    const list = await FeatureList.create(
      [recorded('a', events), failing, recorded('c', events)],
      DEFAULT_CONFIG,
      gatewayParts(),
    );
    await expect(list.start()).rejects.toThrow('b cannot start');
    expect(events).toEqual([
      'make a',
      'make b',
      'make c',
      'start a',
      'start b',
      'close c',
      'close b',
      'close a',
    ]);
    // Closed once: a second close does nothing.
    await list.close();
    expect(events.filter((event) => event === 'close a')).toHaveLength(1);
  });

  it('closes the features made so far when a factory throws', async () => {
    const events: string[] = [];
    const broken: FeatureFactory = () => {
      throw new Error('no such model folder');
    };
    await expect(
      FeatureList.create(
        [recorded('a', events), recorded('b', events), broken],
        DEFAULT_CONFIG,
        gatewayParts(),
      ),
    ).rejects.toThrow('no such model folder');
    expect(events).toEqual(['make a', 'make b', 'close b', 'close a']);
  });

  it('closes every feature even when one fails to close, then throws the failure', async () => {
    const events: string[] = [];
    const stubborn = recorded('b', events, {
      close: () => {
        throw new Error('b will not close');
      },
    });
    const list = await FeatureList.create(
      [recorded('a', events), stubborn, recorded('c', events)],
      DEFAULT_CONFIG,
      gatewayParts(),
    );
    await expect(list.close()).rejects.toThrow('b will not close');
    expect(events).toContain('close a');
    expect(events).toContain('close c');
  });

  it('chains middlewares in slot order, whatever the list order; within a slot, in list order', async () => {
    const seen: string[] = [];
    // Listed innermost first, to show the slots decide.
    const reversed = [...MIDDLEWARE_SLOTS].reverse();
    const factories: FeatureFactory[] = reversed.map((slot) => () => ({
      name: slot,
      middleware: { [slot]: marking(slot, seen) } as Partial<Record<MiddlewareSlot, RunMiddleware>>,
    }));
    factories.push(() => ({
      name: 'second-activity',
      middleware: { activity: marking('activity 2', seen) },
    }));
    const list = await FeatureList.create(factories, DEFAULT_CONFIG, gatewayParts());
    const chain = list.middlewares();
    const run = (index: number): Promise<never> => {
      const middleware = chain[index];
      if (!middleware) return Promise.resolve({ content: [] } as never);
      return middleware({} as never, () => run(index + 1)) as Promise<never>;
    };
    await run(0);
    expect(seen).toEqual([
      'activity',
      'activity 2',
      'observability',
      'search-feedback',
      'call-policies',
      'as-caller',
    ]);
  });

  it('refuses middleware from a feature listed after the pipeline was built', async () => {
    const parts = gatewayParts();
    const pipeline: FeatureFactory = (_config, given) => {
      given.need('middlewareChain')();
      return { name: 'pipeline' };
    };
    const late: FeatureFactory = () => ({ name: 'late', middleware: { activity: (_call, next) => next() } });
    await expect(FeatureList.create([pipeline, late], DEFAULT_CONFIG, parts)).rejects.toThrow(
      'feature "late" contributes middleware but is listed after the pipeline was built',
    );
  });

  it('refuses a config section reloaded by two features, closing what it made', async () => {
    const events: string[] = [];
    await expect(
      FeatureList.create(
        [
          recorded('a', events, { reload: { cache: () => undefined } }),
          recorded('b', events, { reload: { cache: () => undefined } }),
        ],
        DEFAULT_CONFIG,
        gatewayParts(),
      ),
    ).rejects.toThrow('config section "cache" is reloaded by both "a" and "b"');
    expect(events).toEqual(['make a', 'make b', 'close b', 'close a']);
  });

  it('is ready only when every feature that reports readiness is', async () => {
    let up = true;
    const list = await FeatureList.create(
      [
        () => ({ name: 'a', readiness: () => ({ ready: up, a: 1 }) }),
        () => ({ name: 'b', readiness: () => ({ b: 2 }) }),
      ],
      DEFAULT_CONFIG,
      gatewayParts(),
    );
    expect(list.readiness()).toEqual({ ready: true, a: 1, b: 2 });
    up = false;
    expect(list.readiness()).toEqual({ ready: false, a: 1, b: 2 });
  });

  it('throws when a part is needed before a feature provided it', () => {
    expect(() => gatewayParts().need('catalog')).toThrow(
      'part "catalog" is needed before a feature provided it',
    );
  });
});

describe('the gateway feature list', () => {
  it('makes, starts and closes the default gateway, each feature once, HTTP closing first and observability last', async () => {
    // In memory: nothing is written to a state directory.
    const { config } = parseConfigValue({ state: { driver: 'memory' } });
    const parts = gatewayParts(config);
    const list = await FeatureList.create(FEATURES, config, parts);
    expect(list.names[0]).toBe('observability');
    expect(list.names.at(-1)).toBe('http');
    // Every section a reload applies live has exactly one feature.
    expect(Object.keys(list.appliers()).sort()).toEqual(
      [
        'agents',
        'approvals',
        'audit',
        'auth',
        'cache',
        'commands',
        'endpoints',
        'exposure',
        'openapi',
        'overrides',
        'policies',
        'rateLimits',
        'resilience',
        'search',
        'servers',
        'skills',
        'sql',
        'toolsets',
        'trust',
      ].sort(),
    );
    await list.start();
    expect(parts.need('catalog').size).toBeGreaterThan(0);
    expect(list.readiness()).toMatchObject({ ready: true, tools: parts.need('catalog').size });
    await list.close();
  });
});
