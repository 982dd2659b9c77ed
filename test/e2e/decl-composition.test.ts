// biome-ignore-all lint/suspicious/noTemplateCurlyInString: chain arguments hold ${{ … }} templates on purpose.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectHttp, ROOT, type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

/**
 * What declared tools are composed into, through `aperture serve` and the SDK client: a tool with
 * two backends (the preferred one killed), a chain passing fields between three steps, and a
 * text-answering tool given structure by an overridden output schema.
 */

function fixture(name: string, contentType = 'application/json', body?: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': contentType });
    res.end(body ?? JSON.stringify({ from: name, id: url.pathname.split('/').at(-1) }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const base = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('alternatives, chains and the output adapter in `aperture serve`', () => {
  let dir: string;
  let primary: Server;
  let secondary: Server;
  let textual: Server;
  let gateway: RunningGateway;
  let config: string;
  let configText: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-decl-comp-'));
    primary = await fixture('primary');
    secondary = await fixture('secondary');
    textual = await fixture('textual', 'text/plain', '{"count": 3, "unit": "items"}');
    const echo = path.join(ROOT, 'test/fixtures/commands/echo-stdin.mjs');
    config = path.join(dir, 'aperture.yaml');
    configText = [
      'tools: { builtin: false }',
      'endpoints:',
      '  lookup:',
      `    url: "${base(primary)}/things/{id}"`,
      '    inputSchema: { type: object, properties: { id: { type: string } }, required: [id], additionalProperties: false }',
      '  lookup_backup:',
      '    namespace: backup',
      `    url: "${base(secondary)}/things/{id}"`,
      '    inputSchema: { type: object, properties: { id: { type: string } }, required: [id], additionalProperties: false }',
      '  count_text:',
      `    url: "${base(textual)}/count"`,
      'commands:',
      '  echo:',
      `    command: "${echo}"`,
      '    stdin: json',
      '  fail:',
      `    command: "${echo}"`,
      '    args: ["--fail"]',
      '  words:',
      `    command: "${echo}"`,
      '    args: ["--text", "{word}"]',
      'overrides:',
      '  "endpoints:lookup": { alternatives: ["backup:lookup_backup"] }',
      '  "endpoints:count_text":',
      '    outputSchema: { properties: { count: { type: integer }, unit: { type: string } }, required: [count] }',
      '  "commands:words":',
      '    outputSchema: { properties: { said: { type: string } }, required: [said] }',
      '    outputAdapter: { text: said }',
      'skills:',
      '  - name: lookup_twice',
      '    description: Look a thing up in the backup service.',
      '    steps: [{ id: one, tool: "backup:lookup_backup", args: { id: "t1" } }]',
      'observability: { logLevel: error }',
    ].join('\n');
    await writeFile(config, configText);
    gateway = await startHttpGateway(['--config', config]);
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    for (const server of [primary, secondary, textual]) server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails over to the alternative once the preferred backend is killed, naming the one that answered', async () => {
    await using client = await connectHttp(gateway.url);
    const call = (args: Record<string, unknown>) =>
      client.callTool({ name: 'run_tool', arguments: { tool_id: 'endpoints:lookup', args } });
    const before = await call({ id: 'a' });
    expect(structured(before)).toEqual({ from: 'primary', id: 'a' });
    expect(before._meta?.['aperture/answeredBy']).toBe('endpoints:lookup');

    primary.closeAllConnections();
    await new Promise<void>((resolve) => primary.close(() => resolve()));
    const after = await call({ id: 'b' });
    expect(after.isError, JSON.stringify(after.content)).toBeFalsy();
    expect(structured(after)).toEqual({ from: 'secondary', id: 'b' });
    expect(after._meta?.['aperture/answeredBy']).toBe('backup:lookup_backup');

    // A caller's mistake is answered as such, by the tool itself: no failover.
    const invalid = structured(await call({ id: 'c', extra: true }));
    expect(invalid.error.code).toBe('validation_input');
  });

  it('runs a chain of three steps passing fields, one failing step continued and recorded', async () => {
    await using client = await connectHttp(gateway.url);
    const outcome = structured(
      await client.callTool({
        name: 'run_chain',
        arguments: {
          steps: [
            { id: 'thing', tool_id: 'backup:lookup_backup', args: { id: 'x42' } },
            { tool_id: 'commands:fail', on_error: 'continue' },
            {
              tool_id: 'commands:echo',
              args: { id: '${{ steps.thing.result.id }}', note: 'from ${{ steps.thing.result.from }}' },
            },
          ],
        },
      }),
    );
    expect(outcome.steps[1]).toMatchObject({ tool_id: 'commands:fail', error: { code: 'execution_failed' } });
    expect(outcome.steps[1].error.message).toContain('exited with 3');
    expect(outcome.result).toEqual({ argv: [], input: { id: 'x42', note: 'from secondary' }, secret: null });
  });

  it('gives a text answer the structure its overridden output schema declares, validated', async () => {
    await using client = await connectHttp(gateway.url);
    const counted = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'endpoints:count_text', args: {} },
    });
    expect(structured(counted)).toEqual({ count: 3, unit: 'items' });
    const said = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'commands:words', args: { word: 'hi' } },
    });
    expect(structured(said)).toEqual({ said: 'plain --text hi\n' });
  });

  it('runs and plans an inline skill given with the call, refusing a bad one naming the key', async () => {
    await using client = await connectHttp(gateway.url);
    const skill = {
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      steps: [
        { id: 'a', tool: 'backup:lookup_backup', args: { id: '${{ inputs.id }}' } },
        { id: 'b', tool: 'commands:echo', args: { got: '${{ steps.a.result.id }}' } },
      ],
      output: { echoed: '${{ steps.b.result.input.got }}' },
    };
    const planned = structured(
      await client.callTool({ name: 'plan_skill', arguments: { skill, inputs: { id: 'z' } } }),
    );
    expect(planned).toMatchObject({ skill: 'inline', valid: true });
    const ran = await client.callTool({ name: 'run_skill', arguments: { skill, inputs: { id: 'z9' } } });
    expect(structured(ran)).toEqual({ echoed: 'z9' });
    const bad = structured(
      await client.callTool({
        name: 'run_skill',
        arguments: {
          skill: {
            steps: [{ id: 'a', tool: 'backup:lookup_backup', args: { id: '${{ steps.zz.result }}' } }],
          },
        },
      }),
    );
    expect(bad.error.code).toBe('validation_input');
    expect(bad.error.message).toContain('skill.steps[0].args');
  });

  it('serves a declared tool added to the config file once it is saved (hot reload)', async () => {
    await using client = await connectHttp(gateway.url);
    const ids = async () =>
      structured(await client.callTool({ name: 'list_tools', arguments: { namespace: 'later' } })).tools.map(
        (t: { id: string }) => t.id,
      );
    expect(await ids()).toEqual([]);
    const echo = path.join(ROOT, 'test/fixtures/commands/echo-stdin.mjs');
    await writeFile(
      config,
      configText.replace(
        'commands:\n',
        `commands:\n  shout:\n    namespace: later\n    command: "${echo}"\n    args: ["--text", "{word}"]\n`,
      ),
    );
    await vi.waitFor(async () => expect(await ids()).toEqual(['later:shout']), {
      timeout: 20_000,
      interval: 200,
    });
    const said = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'later:shout', args: { word: 'hey' } },
    });
    expect(said.content).toEqual([{ type: 'text', text: 'plain --text hey\n' }]);
  });
});
