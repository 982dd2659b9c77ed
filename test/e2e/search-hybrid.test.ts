import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEARNED_SCOPE } from '../../src/discovery/learned-queries.js';
import { EMBEDDING_SCOPE } from '../../src/discovery/semantic-index.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { waitFor } from '../support/fixture-servers.js';
import { isPackageInstalled, unlessInstalled } from '../support/optional-package.js';
import { connectHttp, ROOT, startHttpGateway, structured } from './gateway-process.js';

const MODEL = path.join(ROOT, 'test/fixtures/onnx-embedder/tiny-bert');

/**
 * The gateway as a user runs it with hybrid search on a local ONNX model: vectors are computed in
 * the background (BM25 answers meanwhile), cached in the SQLite state store, and a restart
 * re-embeds nothing; a search followed by a successful run is learned, and survives the restart.
 */
// The ONNX embedder's package is optional (`.ci/run` installs it): without it this skips, saying so.
const TRANSFORMERS = '@huggingface/transformers';

describe.skipIf(!isPackageInstalled(TRANSFORMERS))(
  `hybrid search in the running gateway${unlessInstalled(TRANSFORMERS)}`,
  () => {
    it('goes hybrid once vectors are ready, learns from use, and keeps both across a restart', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'aperture-hybrid-'));
      const config = path.join(dir, 'aperture.yaml');
      writeFileSync(
        config,
        [
          'search:',
          '  strategy: hybrid',
          `  embedder: { provider: onnx, path: ${JSON.stringify(MODEL)} }`,
          'state: { dir: ./state }',
        ].join('\n'),
      );
      const search = async (client: Awaited<ReturnType<typeof connectHttp>>, query: string) =>
        structured(await client.callTool({ name: 'search_tools', arguments: { query, limit: 5 } }));

      {
        await using gateway = await startHttpGateway(['--config', config], dir);
        await using client = await connectHttp(gateway.url);
        let page: Record<string, unknown> = {};
        await waitFor(
          'hybrid answers',
          async () => {
            page = await search(client, 'current time in a time zone');
            return page.strategy === 'hybrid';
          },
          30_000,
        );
        const ready = (await (await fetch(`${gateway.url}/readyz`)).json()) as Record<string, any>;
        expect(ready.search).toMatchObject({
          strategy: 'hybrid',
          vectors: { model: expect.stringMatching(/^onnx:tiny-bert@[0-9a-f]{12}$/), pending: 0 },
        });
        expect(ready.search.vectors.embedded).toBe(ready.tools);
        const first = (page.tools as { id: string; score: number }[])[0]!;
        expect(first.id).toMatch(/^time:/);
        expect(first.score).toBeGreaterThan(0);
        // "horloge" is no tool's word: BM25 finds nothing, and the vectors do not favour time:now…
        const before = await search(client, 'horloge');
        expect((before.tools as { id: string }[])[0]?.id).not.toBe('time:now');
        // …until an agent searches with it (and words that do match), then runs time:now successfully.
        const found = await search(client, 'horloge current time now');
        expect((found.tools as { id: string }[]).map((t) => t.id)).toContain('time:now');
        const run = await client.callTool({ name: 'run_tool', arguments: { tool_id: 'time:now', args: {} } });
        expect(run.isError).toBeFalsy();
        const after = await search(client, 'horloge');
        expect((after.tools as { id: string }[])[0]?.id).toBe('time:now');
        // The learned query is embedded too, in the background, to be found by meaning.
        await waitFor(
          'the learned query embedded',
          async () => {
            const status = (await (await fetch(`${gateway.url}/readyz`)).json()) as Record<string, any>;
            return status.search.learnedQueries?.queries === 1 && status.search.learnedQueries.pending === 0;
          },
          30_000,
        );
      }

      const store = new SqliteStateStore(path.join(dir, 'state'));
      const embedded = store.count(EMBEDDING_SCOPE);
      expect(embedded).toBeGreaterThan(0);
      expect(store.count(LEARNED_SCOPE)).toBe(1);
      store.close();

      {
        await using gateway = await startHttpGateway(['--config', config], dir);
        await using client = await connectHttp(gateway.url);
        // Cached vectors: hybrid from the very first search, nothing embedded again.
        const page = await search(client, 'horloge');
        expect(page.strategy).toBe('hybrid');
        expect((page.tools as { id: string }[])[0]?.id).toBe('time:now');
        const status = (await (await fetch(`${gateway.url}/readyz`)).json()) as Record<string, any>;
        expect(status.search.learnedQueries).toEqual({ queries: 1, pending: 0 });
      }
      const reopened = new SqliteStateStore(path.join(dir, 'state'));
      expect(reopened.count(EMBEDDING_SCOPE)).toBe(embedded);
      reopened.close();
    }, 60_000);
  },
);
