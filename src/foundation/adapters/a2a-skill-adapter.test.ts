import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import { toA2ASkill } from './a2a-skill-adapter.js';

const TOOL: Tool = {
  id: 'plantuml:encode',
  namespace: 'plantuml',
  name: 'encode',
  title: 'Encode a PlantUML diagram',
  description: 'Encodes PlantUML source.',
  inputSchema: { type: 'object', properties: { source: { type: 'string' } } },
  annotations: {},
  tags: ['plantuml', 'diagram'],
  metadata: {},
  examples: [
    { title: 'Encode a sequence diagram', args: { source: 'A -> B' } },
    { title: ' ', args: { source: 'x' } },
  ],
  origin: { sourceId: 'builtin', kind: 'builtin', originalName: 'encode' },
};

describe('toA2ASkill', () => {
  it('maps id, title, tags and examples; JSON and text in and out', () => {
    expect(toA2ASkill(TOOL)).toEqual({
      value: {
        id: 'plantuml:encode',
        name: 'Encode a PlantUML diagram',
        description: 'Encodes PlantUML source.',
        tags: ['plantuml', 'diagram'],
        examples: ['Encode a sequence diagram', '{"source":"x"}'],
        inputModes: ['application/json', 'text/plain'],
        outputModes: ['application/json', 'text/plain'],
      },
      warnings: ['plantuml:encode (a2a): inputSchema cannot be expressed in this format; dropped'],
    });
  });

  it('falls back to the tool name, omits examples when there are none, refuses non-tools', () => {
    const { title: _title, ...untitled } = TOOL;
    const { value } = toA2ASkill({ ...untitled, examples: [] });
    expect(value.name).toBe('encode');
    expect(value).not.toHaveProperty('examples');
    expect(() => toA2ASkill({ id: 'x' } as unknown as Tool)).toThrow(GatewayError);
  });
});
