import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import {
  compactDescription,
  DEFAULT_DESCRIPTION_CHARS,
  describeTool,
  SUMMARY_MAX_CHARS,
  summaryLine,
  toolSummary,
} from './describe-tool.js';

const encode: Tool = makeSearchTool({
  id: 'plantuml:encode',
  title: 'Encode PlantUML',
  description: 'Encode PlantUML text into a diagram URL. Supports every diagram type.\nFast.',
  inputSchema: {
    type: 'object',
    properties: {
      source: { type: 'string', description: 'PlantUML text' },
      format: { type: 'string', enum: ['svg', 'png', 'txt'] },
      scale: { type: ['number', 'null'] },
      lines: { type: 'array', items: { type: 'string' } },
      mode: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      options: { type: 'object', properties: { dpi: { type: 'integer' } } },
      kind: { const: 'diagram' },
    },
    required: ['source'],
  },
  outputSchema: { type: 'object', properties: { url: { type: 'string' } } },
  annotations: { readOnlyHint: true },
  tags: ['diagrams', 'uml'],
  metadata: { cost: 1, category: 'docs' },
  notes: 'Large diagrams may be slow.',
  examples: Array.from({ length: 7 }, (_, i) => ({ title: `example ${i}`, args: { source: `A -> B${i}` } })),
});

describe('describeTool', () => {
  it('summary: names, description, tags and annotations, no schemas', () => {
    const result = describeTool(encode, 'summary');
    expect(result.tool).toEqual({
      id: 'plantuml:encode',
      name: 'encode',
      namespace: 'plantuml',
      title: 'Encode PlantUML',
      description: encode.description,
      annotations: { readOnlyHint: true },
      tags: ['diagrams', 'uml'],
    });
    expect(result.examples).toBeUndefined();
    expect(result.summary).toBe(summaryLine(encode));
  });

  it('schema: adds input and output schemas and metadata', () => {
    const result = describeTool(encode, 'schema');
    expect(result.tool.inputSchema).toEqual(encode.inputSchema);
    expect(result.tool.outputSchema).toEqual(encode.outputSchema);
    expect(result.tool.metadata).toEqual({ cost: 1, category: 'docs' });
    expect(result.tool.notes).toBeUndefined();
    expect(result.examples).toBeUndefined();
  });

  it('schema: leaves outputSchema out when the tool has none', () => {
    const tool = makeSearchTool({ id: 'a:b', description: 'B.' });
    expect('outputSchema' in describeTool(tool, 'schema').tool).toBe(false);
    expect('title' in describeTool(tool, 'schema').tool).toBe(false);
  });

  it('full: adds notes and examples, five by default', () => {
    const result = describeTool(encode, 'full');
    expect(result.tool.inputSchema).toBeDefined();
    expect(result.tool.notes).toBe('Large diagrams may be slow.');
    expect(result.examples).toEqual(encode.examples.slice(0, 5));
  });

  it('full: caps examples at examplesMax, and gives [] when there are none', () => {
    expect(describeTool(encode, 'full', { examplesMax: 2 }).examples).toHaveLength(2);
    expect(describeTool(encode, 'full', { examplesMax: 0 }).examples).toEqual([]);
    expect(describeTool(makeSearchTool({ id: 'a:b' }), 'full').examples).toEqual([]);
  });

  it('takes the title from the annotations when the tool has no title', () => {
    const tool = makeSearchTool({ id: 'a:b', annotations: { title: 'Bee' } });
    expect(describeTool(tool, 'summary').tool.title).toBe('Bee');
  });

  it('does not let callers mutate the tool through tags or annotations', () => {
    const result = describeTool(encode, 'summary');
    result.tool.tags.push('x');
    result.tool.annotations.readOnlyHint = false;
    expect(encode.tags).toEqual(['diagrams', 'uml']);
    expect(encode.annotations.readOnlyHint).toBe(true);
  });

  it('rejects an unknown level and a bad examplesMax', () => {
    expect(() => describeTool(encode, 'everything' as 'full')).toThrow(GatewayError);
    expect(() => describeTool(encode, 'full', { examplesMax: -1 })).toThrow(GatewayError);
  });
});

describe('summaryLine', () => {
  it('gives the id, the first sentence and the typed parameters', () => {
    expect(summaryLine(encode)).toBe(
      'plantuml:encode — Encode PlantUML text into a diagram URL. Parameters: source (string, required), ' +
        'format (svg|png|txt), scale (number|null), lines (string[]), mode (string|null), options (object), ' +
        'kind (diagram).',
    );
  });

  it('says when there are no parameters, and copes with no description', () => {
    expect(summaryLine(makeSearchTool({ id: 'a:ping', description: 'Ping it' }))).toBe(
      'a:ping — Ping it No parameters.',
    );
    expect(summaryLine(makeSearchTool({ id: 'a:ping' }))).toBe('a:ping No parameters.');
  });

  it('stays on one line within the budget, ending with … when parameters are left out', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`parameter_number_${i}`, { type: 'string' }]),
    );
    const tool = makeSearchTool({
      id: 'big:tool',
      description: `${'Very long words repeated '.repeat(20)}end.`,
      inputSchema: { type: 'object', properties },
    });
    const line = summaryLine(tool);
    expect(line.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^big:tool — Very long words/);
    expect(line).toContain('Parameters: parameter_number_0 (string)');
    expect(line.endsWith('…')).toBe(true);
  });

  it('lists at most five enum values', () => {
    const tool = makeSearchTool({
      id: 'a:b',
      inputSchema: { type: 'object', properties: { n: { enum: [1, 2, 3, 4, 5, 6, 7] } } },
    });
    expect(summaryLine(tool)).toBe('a:b Parameters: n (1|2|3|4|5|…).');
  });
});

describe('toolSummary', () => {
  it('gives the search/list item shape', () => {
    expect(toolSummary(encode)).toEqual({
      id: 'plantuml:encode',
      name: 'encode',
      namespace: 'plantuml',
      description: 'Encode PlantUML text into a diagram URL. Supports every diagram type. Fast.',
      tags: ['diagrams', 'uml'],
    });
    expect('score' in toolSummary(encode)).toBe(false);
    expect(toolSummary(encode, 1.5).score).toBe(1.5);
    expect(toolSummary(encode, 0).score).toBe(0);
  });

  it('trims a long description at a word boundary', () => {
    const description = 'word '.repeat(100);
    const summary = toolSummary(makeSearchTool({ id: 'a:b', description }));
    expect(summary.description.length).toBeLessThanOrEqual(DEFAULT_DESCRIPTION_CHARS);
    expect(summary.description).toMatch(/^(word )+word…$/);
  });

  it('trims to the length it is given', () => {
    const description = 'Reads a file. '.repeat(20);
    expect(toolSummary(makeSearchTool({ id: 'a:b', description }), undefined, 40).description).toBe(
      'Reads a file. Reads a file. Reads a…',
    );
  });
});

describe('compactDescription', () => {
  const first =
    'Fetch a web page and return its main text as Markdown, without scripts, styles or navigation.';

  it('leaves a short description untouched (whitespace collapsed)', () => {
    expect(compactDescription('Get the time.  In any\n time zone.', 160)).toBe(
      'Get the time. In any time zone.',
    );
    const exact = 'x'.repeat(160);
    expect(compactDescription(exact, 160)).toBe(exact);
  });

  it('keeps the first sentence whole and cuts the rest at a word, with an ellipsis', () => {
    const text = `${first} Follows redirects up to five times and gives up on pages larger than ten megabytes.`;
    const compact = compactDescription(text, 120);
    expect(compact.startsWith(`${first} `)).toBe(true);
    expect(compact.length).toBeLessThanOrEqual(120);
    expect(compact).toBe(`${first} Follows redirects up to…`);
  });

  it('keeps a first sentence longer than the limit whole and marks what was left out', () => {
    const text = `${first} Second sentence here.`;
    expect(compactDescription(text, 60)).toBe(`${first} …`);
    // Nothing after it: the sentence alone, no ellipsis.
    expect(compactDescription(first, 60)).toBe(first);
  });

  it('keeps the first sentence whole when the cut would fall just after it', () => {
    const text = `${first} More.`;
    const compact = compactDescription(text, first.length + 2);
    expect(compact).toBe(`${first} …`);
  });

  it('cuts a run-on first sentence (over twice the limit) at a word with an ellipsis', () => {
    const text = `${'lorem ipsum '.repeat(40)}end.`;
    const compact = compactDescription(text, 50);
    expect(compact.length).toBeLessThanOrEqual(50);
    expect(compact).toMatch(/^(lorem ipsum )+lorem…$|^(lorem ipsum )*lorem ipsum…$/);
  });
});
