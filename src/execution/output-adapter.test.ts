import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { ToolOverrides } from '../catalog/tool-overrides.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { adaptOutput } from './output-adapter.js';
import { RunPipeline } from './run-pipeline.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

describe('adaptOutput', () => {
  it('parses JSON object text when the tool declares an output schema', () => {
    const tool = makeTool('a:b', { outputSchema: SCHEMA });
    expect(adaptOutput(tool, text('{"n":1}')).structuredContent).toEqual({ n: 1 });
    expect(adaptOutput(tool, text('[1]')).structuredContent).toBeUndefined();
    expect(adaptOutput(tool, text('words')).structuredContent).toBeUndefined();
    expect(adaptOutput(makeTool('a:c'), text('{"n":1}')).structuredContent).toBeUndefined();
  });

  it('wraps text in the declared field', () => {
    const tool = makeTool('a:b', {
      outputSchema: SCHEMA,
      metadata: { extra: { outputAdapter: { text: 'summary' } } },
    });
    expect(adaptOutput(tool, text('hello')).structuredContent).toEqual({ summary: 'hello' });
  });
});

describe('an overridden output schema on a text-answering tool, through the pipeline', () => {
  function pipeline(answer: string, override: Record<string, unknown>) {
    const catalog = new Catalog({
      overrides: new ToolOverrides({ 't:text': override }),
    });
    catalog.replaceSource('s', [makeEntry(makeTool('t:text'), async () => answer)]);
    return new RunPipeline({ catalog, validator: new SchemaValidator() });
  }
  const caller = { identity: 't' };

  it('validates the parsed text against the schema: structured content when it matches', async () => {
    const ok = await pipeline('{"n": 3}', { outputSchema: SCHEMA }).run({
      caller,
      toolId: 't:text',
      args: {},
    });
    expect(ok.structuredContent).toEqual({ n: 3 });
    await expect(
      pipeline('{"n": "x"}', { outputSchema: SCHEMA }).run({ caller, toolId: 't:text', args: {} }),
    ).rejects.toMatchObject({
      code: 'validation_output',
    });
  });

  it('wraps text with outputAdapter and validates it', async () => {
    const schema = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] };
    const wrapped = await pipeline('plain words', {
      outputSchema: schema,
      outputAdapter: { text: 'summary' },
    }).run({
      caller,
      toolId: 't:text',
      args: {},
    });
    expect(wrapped.structuredContent).toEqual({ summary: 'plain words' });
  });
});
