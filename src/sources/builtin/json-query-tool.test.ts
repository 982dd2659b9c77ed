import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ToolContext } from '../local/define-tool.js';
import { jsonQueryTool } from './json-query-tool.js';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  progress: () => {},
  log: silentLogger,
  caller: { identity: 'test' },
};

const query = (args: Record<string, unknown>): unknown => jsonQueryTool.handler(args, ctx);

function failure(args: Record<string, unknown>): GatewayError {
  try {
    query(args);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

const orders = {
  orders: [
    { id: 1, customer: 'ada', total: 120, items: ['pen', 'ink'] },
    { id: 2, customer: 'bob', total: 40, items: ['pad'] },
    { id: 3, customer: 'ada', total: 75, items: [] },
  ],
};

describe('json:query', () => {
  it('is json:query', () => {
    expect(`${jsonQueryTool.namespace}:${jsonQueryTool.name}`).toBe('json:query');
  });

  it('filters, projects and aggregates a JSON value', () => {
    expect(query({ expression: 'orders[?total > `50`].id', data: orders })).toEqual({ result: [1, 3] });
    expect(query({ expression: 'sum(orders[*].total)', data: orders })).toEqual({ result: 235 });
    expect(query({ expression: 'orders[].items[]', data: orders })).toEqual({
      result: ['pen', 'ink', 'pad'],
    });
    expect(
      query({ expression: 'sort_by(orders, &total)[0].{who: customer, total: total}', data: orders }),
    ).toEqual({
      result: { who: 'bob', total: 40 },
    });
  });

  it('supports community extensions (let, root reference, group_by)', () => {
    expect(query({ expression: 'let $min = `50` in orders[?total > $min].id', data: orders })).toEqual({
      result: [1, 3],
    });
    expect(query({ expression: 'orders[0].{id: id, count: length($.orders)}', data: orders })).toEqual({
      result: { id: 1, count: 3 },
    });
    expect(query({ expression: 'keys(group_by(orders, &customer))', data: orders })).toEqual({
      result: ['ada', 'bob'],
    });
  });

  it('queries JSON text, and scalar or null documents', () => {
    expect(query({ expression: 'a.b', json: '{"a":{"b":[1,2]}}' })).toEqual({ result: [1, 2] });
    expect(query({ expression: '@', data: 'plain' })).toEqual({ result: 'plain' });
    expect(query({ expression: 'missing', data: null })).toEqual({ result: null });
    expect(query({ expression: 'nothing.here', data: orders })).toEqual({ result: null });
  });

  it('requires exactly one of data and json', () => {
    expect(failure({ expression: 'a' }).details?.reason).toMatch(/exactly one/);
    const both = failure({ expression: 'a', data: {}, json: '{}' });
    expect(both.code).toBe('validation_input');
    expect(both.details?.reason).toMatch(/exactly one/);
  });

  it('reports bad JSON text with the parser message', () => {
    const error = failure({ expression: 'a', json: '{"a": 1,}' });
    expect(error.code).toBe('validation_input');
    expect(error.details).toMatchObject({ path: '/json' });
    expect(error.details?.reason).toMatch(/^not valid JSON: .+/);
  });

  it('reports syntax errors and runtime errors in the expression', () => {
    const syntax = failure({ expression: 'orders[', data: orders });
    expect(syntax.code).toBe('validation_input');
    expect(syntax.details).toMatchObject({ path: '/expression' });
    expect(syntax.details?.reason).toMatch(/invalid JMESPath expression: Syntax error/);
    expect(failure({ expression: 'abs(orders)', data: orders }).details?.reason).toMatch(
      /failed on this document.*abs/,
    );
    expect(failure({ expression: 'nope(orders)', data: orders }).details?.reason).toMatch(/Unknown function/);
  });
});
