import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import { lintOpenApi } from '../support/redocly-lint.js';
import { refHeavyTools } from '../support/ref-heavy-tools.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

const KEY = 'openapi-e2e-key-0123456789';

/**
 * `/openapi.json` of a gateway serving real downstream servers (everything, memory, filesystem)
 * and local tools whose schemas carry the references real servers publish (sequential-thinking's
 * `#/properties/…`, `$defs`, recursion), linted by redocly's recommended ruleset and dereferenced
 * by swagger-parser, with auth off and on.
 */
describe('/openapi.json with real servers', () => {
  let dir: string;
  const gateways: RunningGateway[] = [];
  const documents: { auth: boolean; doc: Record<string, any> }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-openapi-'));
    const files = path.join(dir, 'files');
    await import('node:fs/promises').then((fs) => fs.mkdir(files));
    // The schemas as a module of plain-object tools: what a server would publish, verbatim.
    const tools = refHeavyTools().map(({ namespace, name, description, inputSchema, outputSchema }) => ({
      namespace,
      name,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
    }));
    await writeFile(
      path.join(dir, 'ref-tools.mjs'),
      `export default ${JSON.stringify(tools)}.map((t) => ({ ...t, handler: () => 'ok' }));\n`,
    );
    const q = (value: string) => JSON.stringify(value);
    const base = [
      'tools: { builtin: true, modules: ["./ref-tools.mjs"] }',
      'servers:',
      `  everything: { command: ${q(process.execPath)}, args: [${q(referenceServerBin('server-everything'))}, stdio] }`,
      `  memory: { command: ${q(process.execPath)}, args: [${q(referenceServerBin('server-memory'))}], env: { MEMORY_FILE_PATH: ${q(path.join(dir, 'memory.jsonl'))} } }`,
      `  files: { command: ${q(process.execPath)}, args: [${q(referenceServerBin('server-filesystem'))}, ${q(files)}] }`,
      'observability: { logLevel: warn }',
    ];
    for (const auth of [false, true]) {
      const config = path.join(dir, `aperture-${auth}.yaml`);
      const lines = auth ? [...base, 'auth:', `  apiKeys: [{ name: e2e, key: ${q(KEY)} }]`] : base;
      await writeFile(config, `${lines.join('\n')}\n`);
      const gateway = await startHttpGateway(['--config', config]);
      gateways.push(gateway);
      const init: RequestInit = auth ? { headers: { 'x-api-key': KEY } } : {};
      const deadline = Date.now() + 30_000;
      while ((await fetch(`${gateway.url}/readyz`, init)).status !== 200) {
        if (Date.now() > deadline) throw new Error('gateway not ready');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const res = await fetch(`${gateway.url}/openapi.json`, init);
      expect(res.status).toBe(200);
      documents.push({ auth, doc: (await res.json()) as Record<string, any> });
    }
  }, 90_000);

  afterAll(async () => {
    for (const gateway of gateways) await gateway[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('has every server’s tools and passes redocly (recommended) with no error and no warning but info-license', async () => {
    for (const { auth, doc } of documents) {
      const paths = Object.keys(doc.paths);
      for (const id of ['everything:echo', 'memory:create_entities', 'files:read_text_file', 'geo:route'])
        expect(paths).toContain(`/api/tools/${id}`);
      const problems = (await lintOpenApi(doc)).filter((p) => p.ruleId !== 'info-license');
      expect(problems, `auth ${auth}: ${JSON.stringify(problems.slice(0, 10), null, 1)}`).toEqual([]);
    }
  });

  it('dereferences with swagger-parser', async () => {
    for (const { doc } of documents) {
      await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    }
  });

  it('declares the API key when auth is on', () => {
    const secured = documents.find((d) => d.auth)?.doc;
    expect(secured?.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(secured?.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
  });
});
