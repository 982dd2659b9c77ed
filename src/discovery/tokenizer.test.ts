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

  it.each([
    ['搜索结果', ['搜索', '索结', '结果']],
    ['搜', ['搜']],
    ['搜索，结果', ['搜索', '结果']],
    ['東京タワー', ['東京', '京タ', 'タワ', 'ワー']],
    ['ひらがな', ['ひら', 'らが', 'がな']],
    ['한국어 검색', ['한국', '국어', '검색']],
    // CJK beside Latin text: each run on its own, in order.
    ['使用Bing搜索API', ['使用', 'bing', '搜索', 'api']],
    ['bing_search: 使用必应搜索', ['bing', 'search', '使用', '用必', '必应', '应搜', '搜索']],
    ['返回的结果数量，默认为5', ['返回', '回的', '的结', '结果', '果数', '数量', '默认', '认为', '5']],
    ['get天气forecast', ['get', '天气', 'forecast']],
    ['getWeather 天气预报 for Paris', ['get', 'weather', '天气', '气预', '预报', 'for', 'paris']],
  ])('CJK text becomes character bigrams: %j → %j', (input, expected) => {
    expect(splitWords(input)).toEqual(expected);
  });

  it('counts a CJK character outside the BMP as one character', () => {
    // U+20000 (CJK Extension B) is a surrogate pair in UTF-16.
    expect(splitWords('\u{20000}字')).toEqual(['\u{20000}字']);
    expect(splitWords('字\u{20000}字')).toEqual(['字\u{20000}', '\u{20000}字']);
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
    ['embeds', 'embedded'],
    ['translation', 'translate'],
    ['translator', 'translate'],
    ['generation', 'generate'],
    ['forecasting', 'forecast'],
    ['currencies', 'currency'],
    ['nutritional', 'nutrition'],
  ])('%s and %s share a stem', (a, b) => {
    expect(stem(a)).toBe(stem(b));
  });

  it.each([
    ['string'],
    ['thing'],
    ['ping'],
    ['status'],
    ['news'],
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
    ['straße'],
    ['ab'],
  ])('%s is left as it is', (word) => {
    expect(stem(word)).toBe(word);
  });

  it('is Porter2, the English Snowball stemmer', () => {
    // Reference outputs of the Snowball English (Porter2) algorithm.
    expect(['consign', 'consigned', 'consigning', 'consignment'].map(stem)).toEqual([
      'consign',
      'consign',
      'consign',
      'consign',
    ]);
    expect(['generously', 'knightly', 'abundantly'].map(stem)).toEqual(['generous', 'knight', 'abund']);
    expect(stem('animadversion')).toBe('animadvers');
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
      'find',
      'like',
      'help',
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

  it('drops the filler of requests, which describes the asker and not a tool', () => {
    expect(tokenize("I'm looking for some help: I need to also get the weather, please")).toEqual([
      stem('help'),
      stem('get'),
      stem('weather'),
    ]);
  });

  it('neither stems nor drops CJK bigrams', () => {
    expect(tokenize('搜索 the 结果 searches')).toEqual(['搜索', '结果', stem('search')]);
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
