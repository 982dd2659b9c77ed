// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/gateway-error.js';
import { formatConfigPath, interpolate, interpolateEnv } from './interpolate.js';

function catchError(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('interpolateEnv', () => {
  it('replaces every reference in every string, deep, without touching other values', () => {
    const input = {
      servers: { s: { args: ['--token=${env:A}', 'x'], env: { URL: 'http://${env:HOST}:${env:PORT}/' } } },
      port: 8080,
      flag: true,
      none: null,
    };
    expect(interpolateEnv(input, { A: 'secret', HOST: 'localhost', PORT: '9000' })).toEqual({
      servers: { s: { args: ['--token=secret', 'x'], env: { URL: 'http://localhost:9000/' } } },
      port: 8080,
      flag: true,
      none: null,
    });
  });

  it('does not modify its input', () => {
    const input = { a: ['${env:A}'] };
    interpolateEnv(input, { A: '1' });
    expect(input).toEqual({ a: ['${env:A}'] });
  });

  it('unescapes $${env:X} to the literal ${env:X}', () => {
    expect(interpolateEnv('a $${env:X} b ${env:X}', { X: 'v' })).toBe('a ${env:X} b v');
  });

  it('leaves ${secret:…} (and its escape) for the secrets pass', () => {
    expect(interpolateEnv('Bearer ${secret:TOKEN} $${secret:T}', {})).toBe(
      'Bearer ${secret:TOKEN} $${secret:T}',
    );
  });

  it('leaves other ${…} forms, such as shell defaults in arguments, untouched', () => {
    expect(interpolateEnv('${HOME:-/tmp} ${PATH}', {})).toBe('${HOME:-/tmp} ${PATH}');
  });

  it('treats a variable set to the empty string as set', () => {
    expect(interpolateEnv('[${env:EMPTY}]', { EMPTY: '' })).toBe('[]');
  });

  it('names the missing variable and the key path where it was used', () => {
    const error = catchError(() =>
      interpolateEnv({ servers: { github: { headers: { Authorization: 'Bearer ${env:GH_TOKEN}' } } } }, {}),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('"GH_TOKEN"');
    expect(error.message).toContain('servers.github.headers.Authorization');
    expect(error.details).toEqual({ path: 'servers.github.headers.Authorization', variable: 'GH_TOKEN' });
  });

  it('names array indexes and unusual keys unambiguously', () => {
    const error = catchError(() => interpolateEnv({ overrides: { 'a:b': { tags: ['${env:T}'] } } }, {}));
    expect(error.details?.path).toBe('overrides["a:b"].tags[0]');
  });

  it('starts paths at the given prefix', () => {
    const error = catchError(() => interpolateEnv('${env:X}', {}, ['servers', 'x', 'cwd']));
    expect(error.details?.path).toBe('servers.x.cwd');
  });

  it('does not resolve names from Object.prototype', () => {
    expect(() => interpolateEnv('${env:toString}', {})).toThrow(/"toString" is not set/);
  });

  it('rejects an empty reference', () => {
    expect(catchError(() => interpolateEnv({ a: '${env:}' }, {})).message).toMatch(/Empty reference.* at a/);
  });
});

describe('interpolate with a secret resolver', () => {
  const resolvers = { env: () => undefined, secret: (name: string) => (name === 'T' ? 's3cret' : undefined) };

  it('resolves secrets and unescapes their escape', () => {
    expect(interpolate('${secret:T} $${secret:T}', resolvers)).toBe('s3cret ${secret:T}');
  });

  it('names a missing secret', () => {
    const error = catchError(() => interpolate({ h: '${secret:NOPE}' }, resolvers));
    expect(error.message).toBe('Secret "NOPE" is not defined (used at h)');
    expect(error.details).toEqual({ path: 'h', secret: 'NOPE' });
  });
});

describe('formatConfigPath', () => {
  it('formats words with dots, indexes with brackets, other keys quoted', () => {
    expect(formatConfigPath(['servers', 'my-server', 'args', 2])).toBe('servers.my-server.args[2]');
    expect(formatConfigPath(['overrides', '*', 'name'])).toBe('overrides["*"].name');
    expect(formatConfigPath([])).toBe('(top level)');
  });
});
