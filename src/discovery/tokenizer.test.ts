import { describe, expect, it } from 'vitest';
import { STOP_WORDS, splitWords, stem, tokenize } from './tokenizer.js';

describe('splitWords', () => {
  it.each([
    ['createIssue', ['create', 'issue']],
    ['CreateIssue', ['create', 'issue']],
    ['create_issue', ['create', 'issue']],
    ['create-issue', ['create', 'issue']],
    ['github:create-issue', ['github', 'create', 'issue']],
    ['CREATE_ISSUE', ['create', 'issue']],
    ['HTTPServer', ['http', 'server']],
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['fs.readFile', ['fs', 'read', 'file']],
    ['repos/{owner}/{repo}', ['repos', 'owner', 'repo']],
    ['  Hello,   World!  ', ['hello', 'world']],
    ["user's don't", ['users', 'dont']],
    ['', []],
    ['--::--', []],
  ])('%j → %j', (input, expected) => {
    expect(splitWords(input)).toEqual(expected);
  });

  it('keeps a letters+digits word whole and also splits it at the digits', () => {
    expect(splitWords('base64Encode')).toEqual(['base64', 'base', '64', 'encode']);
    expect(splitWords('html2text')).toEqual(['html2text', 'html', 'text']);
    expect(splitWords('sha256')).toEqual(['sha256', 'sha', '256']);
  });

  it('drops one-character fragments of a digit split but keeps the word', () => {
    expect(splitWords('s3')).toEqual(['s3']);
    expect(splitWords('getV2Users')).toEqual(['get', 'v2', 'users']);
    expect(splitWords('HTTP2Server')).toEqual(['http2', 'http', 'server']);
  });

  it('keeps plain numbers and non-ASCII letters', () => {
    expect(splitWords('retry 3 times, port 8080')).toEqual(['retry', '3', 'times', 'port', '8080']);
    expect(splitWords('Übersetzung café')).toEqual(['übersetzung', 'café']);
  });
});

describe('stem', () => {
  it.each([
    ['issues', 'issue'],
    ['files', 'file'],
    ['listing', 'list'],
    ['lists', 'list'],
    ['listed', 'list'],
    ['creating', 'create'],
    ['created', 'create'],
    ['creates', 'create'],
    ['queries', 'query'],
    ['querying', 'query'],
    ['entries', 'entry'],
    ['copied', 'copy'],
    ['running', 'run'],
    ['getting', 'get'],
    ['using', 'use'],
    ['used', 'use'],
    ['naming', 'name'],
    ['typed', 'type'],
    ['matches', 'match'],
    ['searches', 'search'],
    ['searching', 'search'],
    ['boxes', 'box'],
    ['indexes', 'index'],
    ['addresses', 'address'],
    ['caches', 'cache'],
    ['caching', 'cache'],
    ['statuses', 'status'],
    ['databases', 'database'],
    ['settings', 'set'],
    ['embedding', 'embed'],
    ['aliases', 'alias'],
    ['ids', 'id'],
  ])('%s and %s share a stem', (a, b) => {
    expect(stem(a)).toBe(stem(b));
  });

  it.each([
    ['string'],
    ['thing'],
    ['ping'],
    ['status'],
    ['analysis'],
    ['access'],
    ['class'],
    ['add'],
    ['need'],
    ['speed'],
    ['get'],
    ['not'],
    ['list'],
    ['array'],
    ['key'],
    ['base64'],
    ['über'],
  ])('%s is left as it is', (word) => {
    expect(stem(word)).toBe(word);
  });

  it('undoes consonant doubling only where it was added', () => {
    expect(stem('adding')).toBe('add');
    expect(stem('calling')).toBe('call');
    expect(stem('passing')).toBe('pass');
    expect(stem('mapping')).toBe('map');
  });

  it('keeps words that must stay apart apart', () => {
    expect(stem('notes')).not.toBe(stem('not'));
    expect(stem('note')).not.toBe('not');
    expect(stem('string')).not.toBe(stem('str'));
    expect(stem('using')).not.toBe(stem('us'));
  });
});

describe('tokenize', () => {
  const createIssue = tokenize('create issue');

  it.each([
    ['create_issue'],
    ['createIssue'],
    ['CreateIssue'],
    ['create-issue'],
    ['Create issues'],
    ['creating issues'],
  ])('"create issue" meets the tokens of %s', (name) => {
    expect(tokenize(name)).toEqual(createIssue);
  });

  it('keeps the namespace as its own token', () => {
    expect(tokenize('github:create-issue')).toEqual(['github', ...createIssue]);
  });

  it('drops stop words and punctuation', () => {
    expect(tokenize('Get the list of files in a folder, for the user.')).toEqual([
      stem('get'),
      stem('list'),
      stem('files'),
      stem('folder'),
      stem('user'),
    ]);
  });

  it('never drops words that matter for tools', () => {
    for (const word of [
      'get',
      'list',
      'create',
      'delete',
      'update',
      'not',
      'no',
      'all',
      'new',
      'set',
      'run',
    ]) {
      expect(STOP_WORDS.has(word)).toBe(false);
      expect(tokenize(word)).toHaveLength(1);
    }
  });

  it('keeps duplicates as term frequency', () => {
    expect(tokenize('file file files')).toEqual([stem('file'), stem('file'), stem('file')]);
  });

  it('returns nothing for empty, punctuation-only and stop-word-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  ...  ')).toEqual([]);
    expect(tokenize('the of and to')).toEqual([]);
  });
});
