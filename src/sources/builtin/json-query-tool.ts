import { createRequire } from 'node:module';
import type { JSONValue } from '@jmespath-community/jmespath';
import { defineTool, type ToolDefinition } from '../local/define-tool.js';
import { inputError } from './input-error.js';

const require = createRequire(import.meta.url);

interface QueryArgs {
  expression: string;
  data?: unknown;
  json?: string;
}

/** Same ceiling as the HTTP surface's default body limit: larger documents cannot arrive anyway. */
const MAX_JSON_CHARS = 4 * 1024 * 1024;

/** `json:query`: JMESPath over a JSON document given inline or as text. */
export const jsonQueryTool: ToolDefinition = defineTool<QueryArgs>({
  namespace: 'json',
  name: 'query',
  title: 'Query JSON with JMESPath',
  description:
    'Evaluates a JMESPath expression (JMESPath Community edition: filters, projections, slices, ' +
    'pipes, multiselect, functions such as length, sort_by, group_by, to_number, and let ' +
    'expressions) against a JSON document, given either as a JSON value in `data` or as JSON ' +
    'text in `json` (exactly one of the two). Use it to pick fields out of a large tool result, ' +
    'filter or reshape arrays, or count and aggregate, instead of reading the whole document. ' +
    'Returns { result }, which is null when the expression matches nothing.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['expression'],
    properties: {
      expression: {
        type: 'string',
        minLength: 1,
        maxLength: 10000,
        description:
          'JMESPath expression, e.g. "people[?age > `30`].name", "items[*].{id: id, total: price * qty}", ' +
          '"length(orders)". Literals go in backticks.',
      },
      data: {
        description:
          'The JSON document to query, as any JSON value (object, array, string, number, boolean or null).',
      },
      json: {
        type: 'string',
        maxLength: MAX_JSON_CHARS,
        description:
          'The JSON document to query, as JSON text (e.g. a string returned by another tool). Give this or `data`, not both.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result'],
    properties: {
      result: { description: 'The value the expression selects: any JSON value, null when nothing matches.' },
    },
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  tags: ['json', 'jmespath', 'query', 'filter', 'transform'],
  metadata: { category: 'data', sideEffect: false, cost: 0, latencyHintMs: 2 },
  examples: [
    {
      title: 'Names of people older than 30',
      args: {
        expression: 'people[?age > `30`].name',
        data: {
          people: [
            { name: 'Ada', age: 36 },
            { name: 'Linus', age: 28 },
            { name: 'Grace', age: 45 },
          ],
        },
      },
      resultHint: '{ result: ["Ada", "Grace"] }',
    },
    {
      title: 'Sort JSON text and reshape',
      args: {
        expression: 'sort_by(items, &price)[].{sku: sku, price: price}',
        json: '{"items":[{"sku":"b","price":5,"stock":1},{"sku":"a","price":2,"stock":0}]}',
      },
      resultHint: '{ result: [{ sku: "a", price: 2 }, { sku: "b", price: 5 }] }',
    },
  ],
  handler(args) {
    // Required on first use (it ships CommonJS too), to keep start-up fast.
    const { compile, TreeInterpreter } =
      require('@jmespath-community/jmespath') as typeof import('@jmespath-community/jmespath');
    const document = documentOf(args);
    let ast: ReturnType<typeof compile>;
    try {
      ast = compile(args.expression);
    } catch (error) {
      throw inputError('/expression', `invalid JMESPath expression: ${messageOf(error)}`);
    }
    try {
      // TreeInterpreter.search runs an already compiled AST: a syntax error is told apart from a
      // runtime one (wrong argument type, unknown function), and the text is not parsed twice.
      return { result: TreeInterpreter.search(ast, document) };
    } catch (error) {
      throw inputError('/expression', `the expression failed on this document: ${messageOf(error)}`);
    }
  },
});

function documentOf(args: QueryArgs): JSONValue {
  const hasData = Object.hasOwn(args, 'data') && args.data !== undefined;
  const hasJson = args.json !== undefined;
  if (hasData === hasJson) {
    throw inputError(
      hasData ? '/json' : '/data',
      'give the document in exactly one of `data` (a JSON value) or `json` (JSON text)',
    );
  }
  if (hasData) return args.data as JSONValue;
  if (typeof args.json !== 'string') throw inputError('/json', 'must be a string of JSON text');
  try {
    return JSON.parse(args.json) as JSONValue;
  } catch (error) {
    throw inputError('/json', `not valid JSON: ${messageOf(error)}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
