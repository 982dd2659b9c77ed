/**
 * An {@link Embedder} that runs a sentence-embedding ONNX model from a local directory (a
 * Hugging Face export: `config.json`, `tokenizer.json`, `tokenizer_config.json`,
 * `onnx/model.onnx`) with `@huggingface/transformers` on onnxruntime-node. For operators who want
 * a stronger model than the one shipped in npm without sending texts to a remote endpoint.
 *
 * `@huggingface/transformers` is not installed with the gateway (with onnxruntime it weighs
 * ~470 MB): it is loaded on first use, and its absence is a `config_invalid` error saying what to
 * install. Nothing is ever downloaded (remote models are disabled, the directory is read as is).
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { type Embedder, throwIfEmbeddingCancelled } from '../../foundation/ports/embedder.js';

export interface TransformersEmbedderOptions {
  /** The model directory. */
  modelDir: string;
  /** How token vectors become one text vector. Default `mean`. */
  pooling?: 'mean' | 'cls';
  /** Texts per model call. Default 32. */
  batchSize?: number;
  /**
   * transformers.js dtype, which picks the file: `fp32` (the default on CPU) reads onnx/model.onnx,
   * `q8` onnx/model_quantized.onnx, `fp16` onnx/model_fp16.onnx…
   */
  dtype?: string;
}

/** The slice of the transformers.js API used here (typed locally: the package is optional). */
interface FeatureExtractor {
  (
    texts: string[],
    options: { pooling: 'mean' | 'cls'; normalize: boolean },
  ): Promise<{ data: Float32Array; dims: number[] }>;
  dispose(): Promise<void>;
}
interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: Record<string, unknown>,
  ): Promise<FeatureExtractor>;
}

/** The optional package the `onnx` embedder needs. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
/** The versions it is tested with (`.ci/run` installs this range). */
export const TRANSFORMERS_VERSION_RANGE = '^4.3.1';
/**
 * How to install it: ONNXRUNTIME_NODE_INSTALL=skip stops onnxruntime-node's install script from
 * downloading the CUDA libraries (linux/x64); the CPU build it needs is in the package.
 */
export const TRANSFORMERS_INSTALL_COMMAND = `ONNXRUNTIME_NODE_INSTALL=skip npm install ${TRANSFORMERS_PACKAGE}@${TRANSFORMERS_VERSION_RANGE}`;
const PACKAGE = TRANSFORMERS_PACKAGE;

/** Loads the model in `options.modelDir`; throws GatewayError `config_invalid` when it cannot. */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  const dir = resolve(options.modelDir);
  const pooling = options.pooling ?? 'mean';
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 32));
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new GatewayError('config_invalid', `ONNX embedding model directory not found: ${dir}`, {
      details: { modelDir: dir },
    });
  }

  const model = onnxModelId(dir, options);
  const { env, pipeline } = await loadTransformers();
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  let extractor: FeatureExtractor;
  try {
    // An absolute path is not a Hub model id, so transformers.js reads files from it directly
    // (`env.localModelPath` only prefixes model ids).
    extractor = await pipeline('feature-extraction', dir, {
      local_files_only: true,
      device: 'cpu',
      ...(options.dtype === undefined ? {} : { dtype: options.dtype }),
    });
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `Cannot load the ONNX embedding model in ${dir}: ${message(error)}`,
      {
        details: { modelDir: dir },
        cause: error,
      },
    );
  }

  let closed = false;
  return {
    model,
    async embed(texts, { signal } = {}) {
      if (closed) throw new GatewayError('internal', `The embedding model ${model} is closed`);
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        throwIfEmbeddingCancelled(signal);
        let output: Awaited<ReturnType<FeatureExtractor>>;
        try {
          output = await extractor(texts.slice(start, start + batchSize), { pooling, normalize: true });
        } catch (error) {
          throw new GatewayError('internal', `ONNX embedding model ${model} failed: ${message(error)}`, {
            cause: error,
          });
        }
        const [rows, width] = output.dims as [number, number];
        for (let row = 0; row < rows; row++) {
          vectors.push(output.data.slice(row * width, (row + 1) * width));
        }
      }
      throwIfEmbeddingCancelled(signal);
      return vectors;
    },
    async close() {
      if (closed) return;
      closed = true;
      await extractor.dispose();
    },
  };
}

/**
 * The `model` of the embedder on `dir`, which keys its cached vectors: the folder's name, for
 * people, then a digest of what decides the vectors — every file in the folder (path, size,
 * modification time), the pooling and the dtype. A model replaced in place, or another model in a
 * folder of the same name, never reuses the vectors of the first. (Copying a model re-embeds the
 * tools once: a copy has new modification times.) A folder that cannot be read gets no digest.
 */
export function onnxModelId(
  modelDir: string,
  options: Pick<TransformersEmbedderOptions, 'pooling' | 'dtype'> = {},
): string {
  const dir = resolve(modelDir);
  const digest = createHash('sha256').update(`${options.pooling ?? 'mean'}|${options.dtype ?? ''}`);
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
  } catch {
    return `onnx:${basename(dir)}`;
  }
  for (const file of files) {
    const info = statSync(join(dir, file), { throwIfNoEntry: false });
    if (info?.isFile()) digest.update(`\n${file}|${info.size}|${info.mtimeMs}`);
  }
  return `onnx:${basename(dir)}@${digest.digest('hex').slice(0, 12)}`;
}

function missingPackage(reason: string, cause: unknown): GatewayError {
  return new GatewayError(
    'config_invalid',
    `Cannot load ${PACKAGE} (${reason}); search.embedder provider "onnx" needs it: ` +
      `install it with \`${TRANSFORMERS_INSTALL_COMMAND}\``,
    { cause, details: { path: 'search.embedder', package: PACKAGE, install: TRANSFORMERS_INSTALL_COMMAND } },
  );
}

/**
 * Checks at startup that the optional package can be found, so that a config asking for the
 * `onnx` embedder without it fails at once, saying what to install, instead of in a log line
 * once the first vectors are wanted. `resolvePackage` is replaceable for tests.
 *
 * @throws GatewayError `config_invalid` with `details.package` and `details.install`.
 */
export function assertTransformersInstalled(
  resolvePackage: (name: string) => string = createRequire(import.meta.url).resolve,
): void {
  try {
    resolvePackage(PACKAGE);
  } catch (error) {
    throw missingPackage(message(error), error);
  }
}

async function loadTransformers(): Promise<TransformersModule> {
  try {
    // A variable specifier: the package is optional, so neither tsc nor a bundler may require it.
    const specifier: string = PACKAGE;
    return (await import(specifier)) as TransformersModule;
  } catch (error) {
    // Usually "Cannot find package" (an optional dependency left out), sometimes a broken install.
    throw missingPackage(message(error), error);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
