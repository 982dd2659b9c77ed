import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { OperationBinding, ParameterBinding } from './operation-binding.js';
import { buildRequest } from './request-builder.js';

const target = { baseUrl: new URL('https://api.example.com/v1/'), headers: { Authorization: 'Bearer t' } };

function param(partial: Partial<ParameterBinding> & Pick<ParameterBinding, 'name' | 'in'>): ParameterBinding {
  const style = partial.style ?? (partial.in === 'query' || partial.in === 'cookie' ? 'form' : 'simple');
  return { argName: partial.name, style, explode: style === 'form', json: false, ...partial };
}

function build(parameters: ParameterBinding[], args: Record<string, unknown>, path = '/things/{id}') {
  const binding: OperationBinding = { method: 'get', path, parameters };
  return buildRequest(binding, args, target);
}

describe('buildRequest', () => {
  it('joins the base URL path and percent-encodes path parameters', () => {
    const request = build([param({ name: 'id', in: 'path' })], { id: 'a/b?c d' });
    expect(request.url.href).toBe('https://api.example.com/v1/things/a%2Fb%3Fc%20d');
    expect(request.method).toBe('GET');
  });

  it('serialises path styles simple, label and matrix', () => {
    const p = (style: string, explode: boolean) => [param({ name: 'id', in: 'path', style, explode })];
    expect(build(p('simple', false), { id: [1, 2] }).url.pathname).toBe('/v1/things/1,2');
    expect(build(p('simple', true), { id: { a: 1, b: 2 } }).url.pathname).toBe('/v1/things/a=1,b=2');
    expect(build(p('label', false), { id: [1, 2] }).url.pathname).toBe('/v1/things/.1,2');
    expect(build(p('label', true), { id: [1, 2] }).url.pathname).toBe('/v1/things/.1.2');
    expect(build(p('matrix', false), { id: [1, 2] }).url.pathname).toBe('/v1/things/;id=1,2');
    expect(build(p('matrix', true), { id: [1, 2] }).url.pathname).toBe('/v1/things/;id=1;id=2');
  });

  it('serialises query arrays as repeated keys by default, and the other styles on request', () => {
    const q = (style: string, explode: boolean) => [
      param({ name: 'id', in: 'path' }),
      param({ name: 'v', in: 'query', style, explode }),
    ];
    expect(build(q('form', true), { id: 1, v: ['a b', 'c&d'] }).url.search).toBe('?v=a%20b&v=c%26d');
    expect(build(q('form', false), { id: 1, v: ['a', 'b'] }).url.search).toBe('?v=a,b');
    expect(build(q('spaceDelimited', false), { id: 1, v: ['a', 'b'] }).url.search).toBe('?v=a%20b');
    expect(build(q('pipeDelimited', false), { id: 1, v: ['a', 'b'] }).url.search).toBe('?v=a|b');
    expect(build(q('form', true), { id: 1, v: { x: 1, y: 2 } }).url.search).toBe('?x=1&y=2');
    expect(build(q('deepObject', true), { id: 1, v: { x: 1, y: 2 } }).url.search).toBe('?v[x]=1&v[y]=2');
  });

  it('refuses path parameters that would make "." or ".." segments (path traversal)', () => {
    const expectRefused = (parameters: ParameterBinding[], args: Record<string, unknown>, path?: string) => {
      let caught: unknown;
      try {
        build(parameters, args, path);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect((caught as GatewayError).code).toBe('validation_input');
    };
    const id = [param({ name: 'id', in: 'path' })];
    expectRefused(id, { id: '..' });
    expectRefused(id, { id: '.' });
    expectRefused(id, { id: ['..'] });
    expectRefused([param({ name: 'id', in: 'path', style: 'label' })], { id: '.' });
    expectRefused(
      [param({ name: 'a', in: 'path' }), param({ name: 'b', in: 'path' })],
      { a: '.', b: '.' },
      '/things/{a}{b}',
    );
    // Dots inside a segment are ordinary characters.
    expect(build(id, { id: '...' }).url.pathname).toBe('/v1/things/...');
    expect(build(id, { id: 'a..b' }).url.pathname).toBe('/v1/things/a..b');
    expect(build(id, { id: '../x' }).url.pathname).toBe('/v1/things/..%2Fx');
  });

  it('leaves out absent optional parameters and refuses a missing path parameter', () => {
    const request = build([param({ name: 'id', in: 'path' }), param({ name: 'q', in: 'query' })], { id: 1 });
    expect(request.url.search).toBe('');
    expect(() => build([param({ name: 'id', in: 'path' })], {})).toThrow(GatewayError);
  });

  it('uses the argument name, not the wire name, after a collision', () => {
    const request = build(
      [param({ name: 'id', in: 'path' }), param({ name: 'id', in: 'query', argName: 'query_id' })],
      { id: 'p', query_id: 'q' },
    );
    expect(request.url.pathname).toBe('/v1/things/p');
    expect(request.url.search).toBe('?id=q');
  });

  it('sets header and cookie parameters; the source headers win', () => {
    const request = build(
      [
        param({ name: 'id', in: 'path' }),
        param({ name: 'X-Tags', in: 'header' }),
        param({ name: 'Authorization', in: 'header', argName: 'auth' }),
        param({ name: 'session', in: 'cookie' }),
      ],
      { id: 1, 'X-Tags': ['a', 'b'], auth: 'Bearer agent', session: 'x y' },
    );
    expect(request.headers.get('x-tags')).toBe('a,b');
    expect(request.headers.get('authorization')).toBe('Bearer t');
    expect(request.headers.get('cookie')).toBe('session=x%20y');
    expect(request.headers.get('accept')).toContain('application/json');
  });

  it('refuses a header value that would split the request', () => {
    let error: unknown;
    try {
      build([param({ name: 'id', in: 'path' }), param({ name: 'X-A', in: 'header' })], {
        id: 1,
        'X-A': 'a\r\nX-B: b',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('validation_input');
  });

  it('encodes JSON, form and text bodies with the document’s media type', () => {
    const make = (encoding: 'json' | 'form' | 'text', mediaType: string, body: unknown) =>
      buildRequest(
        {
          method: 'post',
          path: '/x',
          parameters: [],
          body: { argName: 'body', encoding, mediaType, required: true },
        },
        { body },
        target,
      );
    const json = make('json', 'application/merge-patch+json', { a: [1] });
    expect(json.method).toBe('POST');
    expect(json.body).toBe('{"a":[1]}');
    expect(json.headers.get('content-type')).toBe('application/merge-patch+json');
    expect(make('form', 'application/x-www-form-urlencoded', { a: 'x y', b: [1, 2] }).body).toBe(
      'a=x+y&b=1&b=2',
    );
    expect(make('text', 'text/plain', 'hello').body).toBe('hello');
  });

  it('sends a parameter described by content as JSON text', () => {
    const request = build(
      [param({ name: 'id', in: 'path' }), param({ name: 'filter', in: 'query', json: true })],
      { id: 1, filter: { a: 1 } },
    );
    expect(request.url.searchParams.get('filter')).toBe('{"a":1}');
  });
});
