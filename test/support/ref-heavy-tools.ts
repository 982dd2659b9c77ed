import type { Tool } from '../../src/foundation/model/tool.js';
import { makeTool } from './test-tools.js';

/**
 * Tools whose schemas carry the local references real servers publish: JSON Pointers into the
 * schema itself (sequential-thinking's `#/properties/nextThoughtNeeded`), `$defs` and draft-07
 * `definitions`, a root `$ref`, recursion (`#` and a self-referencing definition), an anchor, an
 * escaped pointer, broken ones (a pointer to nothing, a remote document), and older dialects'
 * keywords. Used to check that
 * every format a schema is moved into keeps its references resolvable.
 */
export function refHeavyTools(): Tool[] {
  return [
    makeTool('sequential-thinking:sequentialthinking', {
      description: 'A detailed tool for dynamic and reflective problem-solving through thoughts.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          thought: { type: 'string', description: 'Your current thinking step' },
          nextThoughtNeeded: { type: 'boolean', description: 'Whether another thought step is needed' },
          thoughtNumber: { type: 'integer', minimum: 1 },
          totalThoughts: { type: 'integer', minimum: 1 },
          isRevision: { $ref: '#/properties/nextThoughtNeeded' },
          revisesThought: { $ref: '#/properties/thoughtNumber' },
          branchFromThought: { $ref: '#/properties/thoughtNumber' },
          branchId: { type: 'string' },
          needsMoreThoughts: { $ref: '#/properties/nextThoughtNeeded' },
        },
        required: ['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          thoughtNumber: { type: 'integer' },
          totalThoughts: { $ref: '#/properties/thoughtNumber' },
          nextThoughtNeeded: { type: 'boolean' },
        },
      },
    }),
    makeTool('memory:create_entities', {
      inputSchema: {
        type: 'object',
        properties: {
          entities: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                entityType: { type: 'string' },
                observations: { type: 'array', items: { type: 'string' } },
              },
              required: ['name', 'entityType', 'observations'],
            },
          },
        },
        required: ['entities'],
      },
    }),
    makeTool('geo:route', {
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'https://example.test/route.json',
        type: 'object',
        properties: {
          from: { $ref: '#/$defs/point' },
          to: { $ref: '#/$defs/point' },
          via: { type: 'array', items: { $ref: '#/$defs/point' } },
          lat: { $ref: '#/$defs/point/properties/lat' },
          odd: { $ref: '#/$defs/a~1b' },
          pinned: { $ref: '#pin' },
        },
        required: ['from', 'to'],
        $defs: {
          point: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
          'a/b': { type: 'string', enum: ['x', 'y'] },
          pin: { $anchor: 'pin', type: 'string' },
        },
      },
      outputSchema: {
        type: 'object',
        properties: { km: { type: 'number' }, start: { $ref: '#/$defs/point' } },
        $defs: { point: { type: 'array', items: { type: 'number' } } },
      },
    }),
    makeTool('files:tree', {
      description: 'A recursive schema: a node contains nodes.',
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#' } },
          filter: { $ref: '#/definitions/Filter' },
        },
        definitions: {
          Filter: {
            type: 'object',
            properties: {
              glob: { type: 'string' },
              not: { $ref: '#/definitions/Filter' },
              and: { type: 'array', items: { $ref: '#/definitions/Filter' } },
            },
          },
        },
      },
    }),
    makeTool('zod:args', {
      description: 'zod-to-json-schema output: the root is a reference into its own definitions.',
      inputSchema: {
        $ref: '#/definitions/Args',
        definitions: {
          Args: {
            type: 'object',
            properties: { q: { type: 'string' }, n: { type: 'number', default: 3 } },
            required: ['q'],
          },
        },
        $schema: 'http://json-schema.org/draft-07/schema#',
      },
    }),
    makeTool('union:pick', {
      description: 'A root union whose branches point into each other.',
      inputSchema: {
        anyOf: [
          { type: 'object', properties: { a: { type: 'string', minLength: 2 } }, required: ['a'] },
          { type: 'object', properties: { b: { $ref: '#/anyOf/0/properties/a' } }, required: ['b'] },
        ],
      },
    }),
    makeTool('legacy:dialect', {
      description:
        'Older dialects: draft-04 boolean bounds, draft-07 tuples and dependencies, OpenAPI 3.0 nullable.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: {
          n: { type: 'number', minimum: 0, exclusiveMinimum: true },
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
          d: { type: 'object', dependencies: { a: ['b'] } },
          maybe: { type: 'string', nullable: true },
        },
      },
    }),
    makeTool('broken:refs', {
      description: 'References that resolve nowhere: a missing pointer and a remote document.',
      inputSchema: {
        type: 'object',
        properties: {
          missing: { $ref: '#/$defs/nothing' },
          remote: { $ref: 'http://127.0.0.1:9/schema.json' },
          fine: { type: 'string', default: '#/not/a/ref', examples: ['#/$defs/nothing'] },
        },
      },
    }),
  ];
}
