import { describe, expect, it } from 'vitest';
import { runEmbedderContract } from '../../foundation/ports/embedder.contract.js';
import { dot } from '../../foundation/ports/embedder.js';
import { createUseLiteEmbedder } from './use-lite-embedder.js';

runEmbedderContract('use-lite (built in)', createUseLiteEmbedder, { semantic: true, timeoutMs: 60_000 });

describe('use-lite embedder', () => {
  it('gives 512-dimensional vectors that rank tool descriptions by meaning', async () => {
    const embedder = await createUseLiteEmbedder();
    expect(embedder.model).toBe('use-lite');
    const [query, ...tools] = await embedder.embed([
      'what will the weather be like tomorrow',
      'Get the forecast for a city',
      'Create a pull request in a repository',
      'Translate text between languages',
    ]);
    expect(query).toHaveLength(512);
    const scores = tools.map((tool) => dot(query!, tool));
    expect(scores.indexOf(Math.max(...scores))).toBe(0);
  }, 60_000);

  it('stops between batches when cancelled', async () => {
    const embedder = await createUseLiteEmbedder();
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a'], { signal: controller.signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
  }, 60_000);
});
