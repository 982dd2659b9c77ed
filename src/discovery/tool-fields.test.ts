import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { toolFields } from './tool-fields.js';

describe('toolFields', () => {
  const tool = makeSearchTool({
    id: 'mail:send_message',
    title: 'Compose email',
    description: 'Sends an email.',
    tags: ['email', 'outbound'],
    metadata: { category: 'communication' },
    inputSchema: {
      type: 'object',
      properties: {
        to: { type: 'string', description: 'Recipient address' },
        priority: { type: 'string', enum: ['low', 'high', 3] },
        envelope: {
          type: 'object',
          title: 'Envelope',
          properties: {
            replyTo: { type: 'string' },
            headers: { type: 'object', properties: { xTrace: {} } },
          },
        },
        attachments: {
          type: 'array',
          items: { type: 'object', properties: { fileName: { type: 'string', description: 'Shown name' } } },
        },
        deep: {
          type: 'object',
          properties: { l2: { type: 'object', properties: { l3: { properties: { l4: {} } } } } },
        },
      },
      anyOf: [{ properties: { cc: { type: 'string' } } }],
    },
  });

  it('extracts each field', () => {
    const fields = toolFields(tool);
    expect(fields.name).toBe('send_message');
    expect(fields.namespace).toBe('mail');
    expect(fields.title).toBe('Compose email');
    expect(fields.description).toBe('Sends an email.');
    expect(fields.tags).toBe('email outbound communication');
  });

  it('leaves out a title that only repeats the name', () => {
    const titled = (title: string) => toolFields(makeSearchTool({ id: 'gh:create_issue', title })).title;
    expect(titled('Create Issue')).toBe('');
    expect(titled('create-issue')).toBe('');
    expect(titled('Open a GitHub issue')).toBe('Open a GitHub issue');
    const annotated = makeSearchTool({ id: 'gh:create_issue', annotations: { title: 'New issue' } });
    expect(toolFields(annotated).title).toBe('New issue');
  });

  it('walks nested properties, array items and combinators down to depth 3', () => {
    const names = toolFields(tool).paramNames.split(' ');
    expect(names).toEqual(
      expect.arrayContaining([
        'to',
        'priority',
        'envelope',
        'replyTo',
        'headers',
        'xTrace',
        'fileName',
        'cc',
      ]),
    );
    expect(names).toContain('l3');
    expect(names).not.toContain('l4');
    expect(toolFields(tool, { maxDepth: 1 }).paramNames.split(' ')).not.toContain('replyTo');
  });

  it('collects parameter descriptions and titles', () => {
    const text = toolFields(tool).paramDescriptions;
    for (const part of ['Recipient address', 'Envelope', 'Shown name']) expect(text).toContain(part);
    expect(text).not.toContain('low');
  });

  it('collects string enum values and consts as a field of their own', () => {
    expect(toolFields(tool).enumValues).toBe('low high');
    const withConst = makeSearchTool({
      id: 'a:b',
      inputSchema: {
        type: 'object',
        properties: { kind: { oneOf: [{ const: 'pull_request' }, { const: 'issue' }] }, n: { enum: [1, 2] } },
      },
    });
    expect(toolFields(withConst).enumValues).toBe('pull_request issue');
  });

  it('copes with schemas that are not what they should be', () => {
    const odd = makeSearchTool({ id: 'a:b', inputSchema: { properties: { x: true, y: null, z: [] } } });
    expect(toolFields(odd).paramNames).toBe('x y z');
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.anyOf = [cyclic];
    expect(() => toolFields(makeSearchTool({ id: 'a:c', inputSchema: cyclic }))).not.toThrow();
  });
});
