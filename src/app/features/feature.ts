import type { TaskStore } from '@a2a-js/sdk/server';
import type { Hono } from 'hono';
import type { ApertureConfig } from '../../config/config-schema.js';
import type { LoadedConfig } from '../../config/load-config.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import type { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import type { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import type { GrowingMasker } from '../../operations/secrets/growing-masker.js';
import type { RedisConnection } from '../../operations/state/redis-connection.js';
import type { SurfaceContext } from '../../surfaces/surface-context.js';
import type { ReloadOutcome, ReloadTrigger, SectionApplier } from '../config-reloader.js';

/**
 * The slots of the run pipeline's middleware chain, outermost first — one closed list, so the
 * order is decided here and nowhere else:
 *
 * - `activity`: the console's live log; outermost, it sees every outcome.
 * - `observability`: call logs, spans, metrics.
 * - `search-feedback`: failures and learning from use, reported back to search.
 * - `call-policies`: rate limits, cache, retries, circuit breaking (in that order, swapped by a reload).
 * - `as-caller`: innermost — a per-user server's request carries the caller's token, whatever retried it.
 */
export const MIDDLEWARE_SLOTS = [
  'activity',
  'observability',
  'search-feedback',
  'call-policies',
  'as-caller',
] as const;

/** One slot of {@link MIDDLEWARE_SLOTS}. */
export type MiddlewareSlot = (typeof MIDDLEWARE_SLOTS)[number];

/** What an HTTP listener's routes are made from. */
export interface RouteContext {
  /** Everything every surface shares, the listener's base URL included. */
  surface: SurfaceContext;
  /** The address listened on (the console is on by default on loopback only). */
  host: string;
  /** True when the HTTP surfaces require credentials. */
  authEnabled: boolean;
}

/** Options a feature hands the HTTP server (merged over every feature's). */
export interface HttpFeatureOptions {
  /** The A2A task store when it is not the in-memory one (Redis: tasks shared by gateways). */
  a2aTaskStore?: () => Promise<TaskStore>;
  /** Serves `/metrics`, when metrics are on. */
  metrics?: { readonly contentType: string; scrape(): Promise<string> };
  /**
   * The gateway's Redis connection with `state.driver: redis` (MCP sessions and stream events are
   * shared on it); absent with that driver, the HTTP server opens one of its own.
   */
  redis?: RedisConnection;
}

/** A feature's part of the HTTP server; the route modules are loaded only when HTTP is served. */
export interface FeatureHttp {
  /**
   * Sub-apps mounted at the root behind credentials, in list order, before the A2A and manifest
   * routes. The console's `/api/admin` routes end with a catch-all 404: features with admin routes
   * come before the console in the list.
   */
  routes?(context: RouteContext): Promise<readonly Hono[]>;
  /** Sub-apps answered before credentials are checked (static pages holding no data). */
  beforeAuth?(context: RouteContext): Promise<readonly Hono[]>;
  /** Told each listener's base URL once it listens. */
  listening?(baseUrl: string): void;
  /** Options of the HTTP server this feature supplies (`/metrics`, shared sessions…). */
  options?: HttpFeatureOptions;
}

/** What a feature adds to `/readyz`: `ready: false` holds the gateway's readiness back. */
export interface FeatureReadiness {
  ready?: boolean;
  [key: string]: unknown;
}

/**
 * One separable concern of the gateway (trust, OAuth, code mode, the console…), made by a
 * {@link FeatureFactory} and listed once in `features/index.ts`. Every member is optional: a
 * feature contributes only what it has. Modelled on fastify's plugins and hooks.
 *
 * Lifecycle: every factory runs in list order (a feature acquires what it holds and `provide`s
 * the parts later ones need); then `start` runs in list order; `close` runs in reverse list order
 * — also when a later factory or start fails, for every feature made so far.
 */
export interface Feature {
  /** Its name in logs and errors (kebab-case, like its file). */
  readonly name: string;
  /** Run middlewares by slot; within a slot, features run in list order. */
  readonly middleware?: Partial<Record<MiddlewareSlot, RunMiddleware>>;
  /** What a reload does with its config sections, by top-level section (`ConfigReloader`). */
  readonly reload?: Readonly<Record<string, SectionApplier>>;
  readonly http?: FeatureHttp;
  /** Its part of `/readyz`. */
  readiness?(): FeatureReadiness;
  /** Starts its work once every feature was made (sources connect, timers start). */
  start?(): void | Promise<void>;
  /** Releases what it holds; the features listed after it are closed already. */
  close?(): void | Promise<void>;
}

/** Makes a feature from the config at start and the parts of the features listed before it. */
export type FeatureFactory = (config: ApertureConfig, parts: GatewayParts) => Feature | Promise<Feature>;

/**
 * The parts features provide one another, by name. Empty here: each feature file declares what it
 * provides (`declare module './feature.js' { interface PartTypes { … } }`, as fastify plugins
 * declare their decorations), so a new feature is one file and one list line.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each feature's declaration merging.
export interface PartTypes {}

/** What the gateway itself lends every feature (the façade over the feature list). */
export interface GatewayServices {
  log: Logger;
  /** The config running now (a reload replaces it). */
  loaded(): LoadedConfig;
  /** Replaces resolved secret values in text that leaves the gateway (errors, readiness). */
  maskSecrets: GrowingMasker;
  /** The calls in flight on every surface; `drain` waits for them at shutdown. */
  calls: InFlightCalls;
  validator: SchemaValidator;
  /** Reads the config file again and applies what changed. */
  reload(trigger: ReloadTrigger): Promise<ReloadOutcome>;
  /** What `/readyz` answers. */
  readiness(): FeatureReadiness & { ready: boolean };
  /** The options the gateway was created with. */
  options: {
    stateDir?: string;
    backoff?: { minMs?: number; maxMs?: number };
    sessionLinkIdleMs?: number;
    /** False: no HTTP will be served (`serve --stdio`). */
    http: boolean;
  };
}

/**
 * The gateway's services plus the parts features have provided so far. A feature reads a part
 * with `need`, at its factory when it needs it at once (the providing feature must be listed
 * before it), or later, in a callback (then anywhere in the list).
 */
export class GatewayParts {
  private readonly parts = new Map<keyof PartTypes, unknown>();

  constructor(readonly gateway: GatewayServices) {}

  get log(): Logger {
    return this.gateway.log;
  }

  /** The config running now (a reload replaces it). */
  config(): ApertureConfig {
    return this.gateway.loaded().config;
  }

  /** Makes `value` the part `name`; a part is provided once. */
  provide<K extends keyof PartTypes>(name: K, value: PartTypes[K]): PartTypes[K] {
    if (this.parts.has(name)) throw new GatewayError('internal', `part "${String(name)}" is provided twice`);
    this.parts.set(name, value);
    return value;
  }

  /** The part `name`; throws when no feature listed so far provided it (a list-order mistake). */
  need<K extends keyof PartTypes>(name: K): PartTypes[K] {
    if (!this.parts.has(name)) {
      throw new GatewayError('internal', `part "${String(name)}" is needed before a feature provided it`);
    }
    return this.parts.get(name) as PartTypes[K];
  }
}
