import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { failure, failureOf } from '../../../test/support/expect-failure.js';
import { isPackageInstalled, unlessInstalled } from '../../../test/support/optional-package.js';
import { runEmbedderContract } from '../../foundation/ports/embedder.contract.js';
import { dot, type Embedder } from '../../foundation/ports/embedder.js';
import {
  assertTransformersInstalled,
  createTransformersEmbedder,
  onnxModelId,
  TRANSFORMERS_INSTALL_COMMAND,
  TRANSFORMERS_PACKAGE,
  TRANSFORMERS_VERSION_RANGE,
} from './transformers-embedder.js';

/** A toy BERT (token embeddings only) built by test/fixtures/onnx-embedder/make-tiny-bert.mjs. */
const modelDir = fileURLToPath(new URL('../../../test/fixtures/onnx-embedder/tiny-bert', import.meta.url));

// The package is optional (not installed by `npm ci`): without it these skip, saying so in their name.
const installed = isPackageInstalled(TRANSFORMERS_PACKAGE);
const skipped = unlessInstalled(TRANSFORMERS_PACKAGE);

if (installed) {
  runEmbedderContract('transformers (local ONNX)', () => createTransformersEmbedder({ modelDir }), {
    semantic: false,
  });
} else {
  describe.skip(`transformers (local ONNX) embedder contract${skipped}`, () => {
    it('runs the shared Embedder contract', () => {});
  });
}

describe.skipIf(!installed)(`transformers embedder${skipped}`, () => {
  const opened: Embedder[] = [];
  const open = async (options: Partial<Parameters<typeof createTransformersEmbedder>[0]> = {}) => {
    const embedder = await createTransformersEmbedder({ modelDir, ...options });
    opened.push(embedder);
    return embedder;
  };
  const temporary: string[] = [];
  afterAll(async () => {
    for (const embedder of opened) await embedder.close?.();
    for (const dir of temporary) await rm(dir, { recursive: true, force: true });
  });

  it('names the model after its directory, with a digest of its files and pooling', async () => {
    const model = (await open()).model;
    expect(model).toMatch(/^onnx:tiny-bert@[0-9a-f]{12}$/);
    expect(onnxModelId(modelDir)).toBe(model);
    expect(onnxModelId(modelDir, { pooling: 'mean' })).toBe(model);
    expect(onnxModelId(modelDir, { pooling: 'cls' })).not.toBe(model);
    expect(onnxModelId(modelDir, { dtype: 'q8' })).not.toBe(model);
  });

  it('gives another model in a folder of the same name, or a file changed in place, another id', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'onnx-id-'));
    temporary.push(parent);
    const copy = join(parent, 'tiny-bert');
    await mkdir(join(copy, 'onnx'), { recursive: true });
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']) {
      await copyFile(join(modelDir, file), join(copy, file));
    }
    const first = onnxModelId(copy);
    expect(first).toMatch(/^onnx:tiny-bert@/);
    expect(onnxModelId(copy)).toBe(first);
    await writeFile(join(copy, 'onnx', 'model.onnx'), 'other weights');
    const changed = onnxModelId(copy);
    expect(changed).not.toBe(first);
    await writeFile(join(copy, 'README.md'), 'a new file');
    expect(onnxModelId(copy)).not.toBe(changed);
    // A folder that cannot be read still gets a name (loading it fails later, with the reason).
    expect(onnxModelId(join(parent, 'missing'))).toBe('onnx:missing');
  });

  it('places texts sharing words closer than texts sharing none', async () => {
    const embedder = await open();
    const [query, sharing, disjoint] = await embedder.embed([
      'read a file from disk',
      'read the file',
      'weather forecast for paris',
    ]);
    expect(query).toHaveLength(32);
    expect(dot(query!, sharing!)).toBeGreaterThan(dot(query!, disjoint!) + 0.2);
  });

  it('gives the same vectors whatever the batch size', async () => {
    const texts = ['one', 'send an email', 'list open pull requests', 'weather in Paris', 'read a file'];
    const whole = await (await open()).embed(texts);
    const batched = await (await open({ batchSize: 2 })).embed(texts);
    expect(batched).toHaveLength(5);
    batched.forEach((vector, i) => {
      expect(dot(vector, whole[i]!)).toBeCloseTo(1, 5);
    });
  });

  it('pools as asked: cls takes the [CLS] token, the same for every text of this toy model', async () => {
    const embedder = await open({ pooling: 'cls' });
    const [a, b] = await embedder.embed(['read a file from disk', 'weather forecast for paris']);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeCloseTo(1, 5);
  });

  it('fails with config_invalid naming a missing directory', async () => {
    const missing = join(tmpdir(), 'no-such-onnx-model-dir');
    const error = await failure(createTransformersEmbedder({ modelDir: missing }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(missing);
  });

  it('fails with config_invalid naming the directory and the cause for a broken model', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'broken-onnx-'));
    temporary.push(dir);
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
      await copyFile(join(modelDir, file), join(dir, file));
    }
    // No model file at all.
    let error = await failure(createTransformersEmbedder({ modelDir: dir }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(dir);
    expect(error.message).toContain('model.onnx');
    // A model file that is not ONNX.
    await mkdir(join(dir, 'onnx'));
    await writeFile(join(dir, 'onnx', 'model.onnx'), 'not a protobuf');
    error = await failure(createTransformersEmbedder({ modelDir: dir }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(dir);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('passes dtype on (q8 wants onnx/model_quantized.onnx, which the fixture lacks)', async () => {
    const error = await failure(createTransformersEmbedder({ modelDir, dtype: 'q8' }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('model_quantized.onnx');
  });

  it('throws cancelled for an aborted signal', async () => {
    const embedder = await open();
    const controller = new AbortController();
    controller.abort();
    const error = await failure(embedder.embed(['read a file'], { signal: controller.signal }));
    expect(error.code).toBe('cancelled');
  });

  it('stops between batches when the signal aborts mid-way', async () => {
    const embedder = await open({ batchSize: 1 });
    const controller = new AbortController();
    let checks = 0;
    // Aborts on the third look, i.e. after two batches of one text ran.
    const signal = {
      get aborted() {
        if (++checks === 3) controller.abort();
        return controller.signal.aborted;
      },
      get reason() {
        return controller.signal.reason;
      },
    } as AbortSignal;
    const error = await failure(embedder.embed(['one', 'two', 'three', 'four'], { signal }));
    expect(error.code).toBe('cancelled');
    expect(checks).toBe(3);
  });

  it('refuses to embed once closed, and closes twice harmlessly', async () => {
    const embedder = await createTransformersEmbedder({ modelDir });
    await embedder.close?.();
    await embedder.close?.();
    const error = await failure(embedder.embed(['read a file']));
    expect(error.message).toContain('closed');
  });
});

// These run whether or not the package is installed.
describe('transformers embedder without its package', () => {
  it('says how to install @huggingface/transformers when it cannot be loaded', async () => {
    vi.doMock('@huggingface/transformers', () => {
      throw new Error("Cannot find package '@huggingface/transformers'");
    });
    try {
      const error = await failure(createTransformersEmbedder({ modelDir }));
      expect(error.code).toBe('config_invalid');
      expect(error.message).toContain(
        'install it with `ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers@^4.3.1`',
      );
      expect(error.details).toMatchObject({
        package: TRANSFORMERS_PACKAGE,
        install: TRANSFORMERS_INSTALL_COMMAND,
      });
    } finally {
      vi.doUnmock('@huggingface/transformers');
    }
  });

  it('fails the startup check with the same code and install command when the package cannot be found', () => {
    const error = failureOf(() =>
      assertTransformersInstalled(() => {
        throw new Error("Cannot find module '@huggingface/transformers'");
      }),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.details).toMatchObject({
      package: TRANSFORMERS_PACKAGE,
      install: TRANSFORMERS_INSTALL_COMMAND,
    });
    expect(() => assertTransformersInstalled(() => '/found')).not.toThrow();
  });

  it('is the range .ci/run installs, so CI runs the tests above', async () => {
    const script = await readFile(fileURLToPath(new URL('../../../.ci/run', import.meta.url)), 'utf8');
    expect(script).toContain(
      `ONNXRUNTIME_NODE_INSTALL=skip npm install --no-save --no-audit --no-fund \\\n  "${TRANSFORMERS_PACKAGE}@${TRANSFORMERS_VERSION_RANGE}"`,
    );
  });
});
