import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ApertureConfig } from '../config/config-schema.js';
import { usesVectors } from '../discovery/tool-search.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Embedder } from '../foundation/ports/embedder.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { createOpenAiEmbedder } from '../operations/embedding/openai-embedder.js';
import {
  assertTransformersInstalled,
  createTransformersEmbedder,
  onnxModelId,
} from '../operations/embedding/transformers-embedder.js';
import { createUseLiteEmbedder } from '../operations/embedding/use-lite-embedder.js';
import { openStateStore } from './state-directory.js';

/** What search runs on besides the catalog: the durable state and, for vector strategies, an embedder. */
export interface SearchBacking {
  /** Embeddings, failure statistics, learned queries. */
  state: StateStore;
  /** Present only when the strategy ranks with vectors. */
  embedder: Embedder | undefined;
  /** Closes the embedder (its model), then the state store. */
  close(): Promise<void>;
}

export interface SearchBackingOptions {
  /** The strategy in use; default `search.strategy` (`eval --strategy` overrides it). */
  strategy?: ApertureConfig['search']['strategy'];
  /** The state directory chosen for this run (`--state-dir`, `APERTURE_STATE_DIR`). */
  stateDir?: string;
  /** A store opened already (the Redis one, shared by gateways); its owner closes it. */
  state?: StateStore;
  log: Logger;
}

/**
 * The one decision of what backs search, shared by `serve` and `eval` so that both rank with the
 * same embedder and cache vectors in the same store: an embedder only for vector strategies, the
 * state store of `state.*`. The embedder is decided first, so a config mistake in it (a missing
 * model folder) throws `config_invalid` before any store is opened.
 */
export function openSearchBacking(
  config: ApertureConfig,
  baseDir: string,
  options: SearchBackingOptions,
): SearchBacking {
  const strategy = options.strategy ?? config.search.strategy;
  const embedder = usesVectors(strategy) ? configuredEmbedder(config.search.embedder, baseDir) : undefined;
  const given = options.state;
  const state =
    given ??
    openStateStore(config.state, baseDir, {
      ...(options.stateDir === undefined ? {} : { dir: options.stateDir }),
      log: options.log,
    });
  return {
    state,
    embedder,
    close: async () => {
      await embedder?.close?.();
      if (!given) state.close();
    },
  };
}

/**
 * The embedder of `search.embedder`. Its model is loaded on first use, in the background, so
 * startup never waits for it (and a gateway that never embeds never loads one). A model that
 * cannot be loaded fails each embedding call with the load error, which search logs and answers
 * around with BM25.
 */
export function configuredEmbedder(
  settings: ApertureConfig['search']['embedder'],
  baseDir: string,
): Embedder {
  if (settings.provider === 'openai') {
    return createOpenAiEmbedder({
      url: settings.url,
      model: settings.model,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...(settings.dimensions ? { dimensions: settings.dimensions } : {}),
    });
  }
  if (settings.provider === 'onnx') {
    const modelDir = resolve(baseDir, settings.path);
    // A folder that is not there is a config mistake: say so at startup, not in a log later.
    if (!existsSync(modelDir)) {
      throw new GatewayError('config_invalid', `search.embedder.path: no model folder at ${modelDir}`, {
        details: { path: 'search.embedder.path' },
      });
    }
    // Likewise the optional package it runs on (not installed by default).
    assertTransformersInstalled();
    return lazyEmbedder(onnxModelId(modelDir, { pooling: settings.pooling }), () =>
      createTransformersEmbedder({ modelDir, pooling: settings.pooling }),
    );
  }
  return lazyEmbedder('use-lite', createUseLiteEmbedder);
}

/** An embedder whose model is created on the first `embed`; a failed load is retried on the next. */
function lazyEmbedder(model: string, load: () => Promise<Embedder>): Embedder {
  let loading: Promise<Embedder> | undefined;
  const loaded = () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return {
    model,
    embed: async (texts, options) => (await loaded()).embed(texts, options),
    close: async () => {
      const embedder = await loading?.catch(() => undefined);
      await embedder?.close?.();
    },
  };
}
