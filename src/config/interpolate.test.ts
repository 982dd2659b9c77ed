// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../test/support/expect-failure.js';
import { findReferences, formatConfigPath, interpolate, interpolateEnv } from './interpolate.js';

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
    const error = failureOf(() =>
      interpolateEnv({ servers: { github: { headers: { Authorization: 'Bearer ${env:GH_TOKEN}' } } } }, {}),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('"GH_TOKEN"');
    expect(error.message).toContain('servers.github.headers.Authorization');
    expect(error.details).toEqual({ path: 'servers.github.headers.Authorization', variable: 'GH_TOKEN' });
  });

  it('names array indexes and unusual keys unambiguously', () => {
    const error = failureOf(() => interpolateEnv({ overrides: { 'a:b': { tags: ['${env:T}'] } } }, {}));
    expect(error.details?.path).toBe('overrides["a:b"].tags[0]');
  });

  it('starts paths at the given prefix', () => {
    const error = failureOf(() => interpolateEnv('${env:X}', {}, ['servers', 'x', 'cwd']));
    expect(error.details?.path).toBe('servers.x.cwd');
  });

  it('does not resolve names from Object.prototype', () => {
    expect(() => interpolateEnv('${env:toString}', {})).toThrow(/"toString" is not set/);
  });

  it('rejects an empty reference', () => {
    expect(failureOf(() => interpolateEnv({ a: '${env:}' }, {})).message).toMatch(/Empty reference.* at a/);
  });
});

describe('interpolate with a secret resolver', () => {
  const resolvers = { env: () => undefined, secret: (name: string) => (name === 'T' ? 's3cret' : undefined) };

  it('resolves secrets and unescapes their escape', () => {
    expect(interpolate('${secret:T} $${secret:T}', resolvers)).toBe('s3cret ${secret:T}');
  });

  it('names a missing secret', () => {
    const error = failureOf(() => interpolate({ h: '${secret:NOPE}' }, resolvers));
    expect(error.message).toBe('h: secret "NOPE" is not defined');
    expect(error.details).toEqual({ path: 'h', secret: 'NOPE' });
  });

  it('resolves secrets and env variables in one string, anywhere in the document', () => {
    const doc = {
      servers: {
        r: { headers: { Authorization: 'Bearer ${secret:T}' } },
        s: { env: { A: '${env:E}-${secret:T}' } },
      },
      agents: { a: { headers: { 'X-Key': '${secret:T}' } } },
    };
    const env = { E: 'e1' };
    expect(interpolate(doc, { env: (name) => env[name as 'E'], secret: resolvers.secret })).toEqual({
      servers: { r: { headers: { Authorization: 'Bearer s3cret' } }, s: { env: { A: 'e1-s3cret' } } },
      agents: { a: { headers: { 'X-Key': 's3cret' } } },
    });
  });

  it('does not re-read a resolved value as a reference', () => {
    const secret = (name: string) => (name === 'T' ? '${secret:U}' : undefined);
    expect(interpolate('${secret:T}', { env: () => undefined, secret })).toBe('${secret:U}');
  });

  it('refuses secret names that are paths, naming where they were used', () => {
    const error = failureOf(() => interpolate({ h: ['${secret:../etc/passwd}'] }, resolvers));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(/^h\[0\]: invalid secret name "\.\.\/etc\/passwd": use letters/);
  });
});

describe('findReferences', () => {
  it('lists the references of one scheme with their paths, skipping escapes and empty names', () => {
    const doc = {
      servers: { r: { headers: { A: 'Bearer ${secret:T} ${env:E}', B: '$${secret:ESCAPED}' } } },
      list: ['${secret: SPACED }', '${secret:}', 3, null, { x: '${secret:T}' }],
    };
    expect(findReferences(doc, 'secret')).toEqual([
      { name: 'T', path: ['servers', 'r', 'headers', 'A'] },
      { name: 'SPACED', path: ['list', 0] },
      { name: 'T', path: ['list', 4, 'x'] },
    ]);
    expect(findReferences(doc, 'env')).toEqual([{ name: 'E', path: ['servers', 'r', 'headers', 'A'] }]);
    expect(findReferences('plain ${HOME}', 'secret')).toEqual([]);
  });
});

describe('formatConfigPath', () => {
  it('formats words with dots, indexes with brackets, other keys quoted', () => {
    expect(formatConfigPath(['servers', 'my-server', 'args', 2])).toBe('servers.my-server.args[2]');
    expect(formatConfigPath(['overrides', '*', 'name'])).toBe('overrides["*"].name');
    expect(formatConfigPath([])).toBe('(top level)');
  });
});

describe('${scheme:NAME:-default}', () => {
  it('uses the default when the variable is unset or empty, the value otherwise', () => {
    expect(interpolateEnv('${env:LOG_LEVEL:-info}', {})).toBe('info');
    expect(interpolateEnv('${env:LOG_LEVEL:-info}', { LOG_LEVEL: '' })).toBe('info');
    expect(interpolateEnv('${env:LOG_LEVEL:-info}', { LOG_LEVEL: 'debug' })).toBe('debug');
  });

  it('allows an empty default and defaults with colons, slashes and spaces', () => {
    expect(interpolateEnv('[${env:X:-}]', {})).toBe('[]');
    expect(interpolateEnv('${env:URL:-http://127.0.0.1:9000/mcp}', {})).toBe('http://127.0.0.1:9000/mcp');
    expect(interpolateEnv('${env:A:- two words }', {})).toBe(' two words ');
  });

  it('still fails for a reference without a default', () => {
    expect(() => interpolateEnv('${env:A:-x} ${env:B}', {})).toThrow('Environment variable "B" is not set');
  });

  it('works for secrets too, and findReferences reports the default', () => {
    expect(interpolate('Bearer ${secret:T:-none}', { env: () => undefined, secret: () => undefined })).toBe(
      'Bearer none',
    );
    expect(findReferences({ a: '${secret:T:-none} ${secret:U}' }, 'secret')).toEqual([
      { name: 'T', path: ['a'], fallback: 'none' },
      { name: 'U', path: ['a'] },
    ]);
  });

  it('keeps escaped references with a default literal', () => {
    expect(interpolateEnv('$${env:X:-d}', {})).toBe('${env:X:-d}');
  });
});
