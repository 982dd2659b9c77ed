/**
 * A query's `:name` parameters, found by a scanner that knows what is not a parameter: string
 * literals (`':x'`, with `''` escapes), quoted identifiers (`":x"`), comments, PostgreSQL casts
 * (`::int`) and dollar-quoted bodies (`$$ … $$`). Each use becomes a positional placeholder (`$n`
 * for PostgreSQL, one per distinct name; `?` for SQLite, one per use), so values are bound by the
 * driver and never written into the text.
 */
export interface ParsedQuery {
  /** The query for PostgreSQL (`$1`, `$2`…). */
  postgres: string;
  /** Distinct names in the order of their `$n`. */
  names: readonly string[];
  /** The query for SQLite (`?` per use). */
  sqlite: string;
  /** Names in the order of the `?`s. */
  uses: readonly string[];
}

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

/** Parses `query`'s parameters (see {@link ParsedQuery}). */
export function parseQueryParameters(query: string): ParsedQuery {
  let postgres = '';
  let sqlite = '';
  const names: string[] = [];
  const uses: string[] = [];
  let at = 0;
  const copy = (end: number) => {
    const text = query.slice(at, end);
    postgres += text;
    sqlite += text;
    at = end;
  };
  while (at < query.length) {
    const char = query[at] as string;
    const next = query[at + 1];
    if (char === "'" || char === '"' || char === '`') {
      copy(closing(query, at, char));
    } else if (char === '-' && next === '-') {
      const end = query.indexOf('\n', at);
      copy(end < 0 ? query.length : end);
    } else if (char === '/' && next === '*') {
      const end = query.indexOf('*/', at + 2);
      copy(end < 0 ? query.length : end + 2);
    } else if (char === '$' && /[$A-Za-z_]/.test(next ?? '')) {
      const tag = /^\$[A-Za-z_0-9]*\$/.exec(query.slice(at))?.[0];
      if (tag) {
        const end = query.indexOf(tag, at + tag.length);
        copy(end < 0 ? query.length : end + tag.length);
      } else copy(at + 1);
    } else if (char === ':' && next === ':') {
      copy(at + 2);
    } else if (char === ':' && NAME_START.test(next ?? '')) {
      let end = at + 1;
      while (end < query.length && NAME_PART.test(query[end] as string)) end++;
      const name = query.slice(at + 1, end);
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      uses.push(name);
      postgres += `$${index + 1}`;
      sqlite += '?';
      at = end;
    } else {
      copy(at + 1);
    }
  }
  return { postgres, names, sqlite, uses };
}

/** The index just past the quote closing the one at `start` (a doubled quote is an escape). */
function closing(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return text.length;
}
