import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/expect-failure.js';
import { runEmbedderContract } from '../../foundation/ports/embedder.contract.js';
import { dot } from '../../foundation/ports/embedder.js';
import { createHashingEmbedder } from '../../foundation/ports/hashing-embedder.js';
import { createOpenAiEmbedder } from './openai-embedder.js';

/** An OpenAI-compatible endpoint that embeds with the hashing embedder, and misbehaves on request. */
const seen: { auth?: string; body: { model: string; input: string[]; dimensions?: number } }[] = [];
let mode: 'ok' | 'error' | 'garbage' | 'short' | 'shuffled' | 'hang' = 'ok';
let server: Server;
let url = '';

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const body = JSON.parse(raw);
  seen.push({ ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), body });
  if (req.url !== '/v1/embeddings') return void res.writeHead(404).end('no such route');
  if (mode === 'hang') return;
  if (mode === 'error') return void res.writeHead(503).end('overloaded');
  if (mode === 'garbage')
    return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": 5}');
  const vectors = await createHashingEmbedder(64).embed(body.input);
  let data = vectors.map((v, index) => ({ index, embedding: [...v].map((x) => x * 3) }));
  if (mode === 'short') data = data.slice(1);
  if (mode === 'shuffled') data.reverse();
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

runEmbedderContract(
  'OpenAI-compatible endpoint',
  async () => createOpenAiEmbedder({ url, model: 'toy', batchSize: 2 }),
  { semantic: false },
);

describe('OpenAI-compatible embedder', () => {
  it('sends the model, the key, the dimensions and batches of texts', async () => {
    mode = 'ok';
    seen.length = 0;
    const embedder = createOpenAiEmbedder({
      url: `${url}/`,
      model: 'm1',
      apiKey: 'sk-test',
      dimensions: 64,
      batchSize: 2,
    });
    const vectors = await embedder.embed(['a b', 'c', 'd']);
    expect(vectors).toHaveLength(3);
    expect(seen.map((s) => s.body.input)).toEqual([['a b', 'c'], ['d']]);
    expect(seen[0]).toMatchObject({ auth: 'Bearer sk-test', body: { model: 'm1', dimensions: 64 } });
    expect(embedder.model).toBe(`openai:m1:64@${url}/embeddings`);
  });

  it('puts vectors back in input order by their index', async () => {
    mode = 'shuffled';
    const [a, b] = await createOpenAiEmbedder({ url, model: 'm' }).embed(['alpha', 'beta']);
    mode = 'ok';
    const [alpha] = await createOpenAiEmbedder({ url, model: 'm' }).embed(['alpha']);
    expect(dot(a!, alpha!)).toBeCloseTo(1, 5);
    expect(dot(b!, alpha!)).toBeLessThan(0.9);
  });

  it('fails with backend_unavailable on HTTP errors and unreachable endpoints, without the key', async () => {
    mode = 'error';
    const error = await failure(createOpenAiEmbedder({ url, model: 'm', apiKey: 'sk-secret' }).embed(['x']));
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toContain('503');
    expect(error.message).not.toContain('sk-secret');
    const wrongPath = await failure(
      createOpenAiEmbedder({ url: url.replace('/v1', '/v2'), model: 'm' }).embed(['x']),
    );
    expect(wrongPath.code).toBe('backend_unavailable');
    const down = await failure(
      createOpenAiEmbedder({ url: 'http://127.0.0.1:9/v1', model: 'm' }).embed(['x']),
    );
    expect(down.code).toBe('backend_unavailable');
  });

  it('fails with execution_failed on answers of the wrong shape', async () => {
    for (const bad of ['garbage', 'short'] as const) {
      mode = bad;
      const error = await failure(createOpenAiEmbedder({ url, model: 'm' }).embed(['x', 'y']));
      expect(error.code).toBe('execution_failed');
    }
  });

  it('times out a hanging endpoint, and gives up at once when cancelled', async () => {
    mode = 'hang';
    const slow = await failure(createOpenAiEmbedder({ url, model: 'm', timeoutMs: 200 }).embed(['x']));
    expect(slow.code).toBe('backend_unavailable');
    expect(slow.message).toContain('timed out');
    const controller = new AbortController();
    const pending = createOpenAiEmbedder({ url, model: 'm' }).embed(['x'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).code).toBe('cancelled');
    mode = 'ok';
  });
});
