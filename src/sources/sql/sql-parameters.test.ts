import { describe, expect, it } from 'vitest';
import { parseQueryParameters } from './sql-parameters.js';

describe('parseQueryParameters', () => {
  it('turns :name into positional placeholders, one $n per distinct name and one ? per use', () => {
    const parsed = parseQueryParameters('select * from t where a = :id or b = :name or c = :id');
    expect(parsed.postgres).toBe('select * from t where a = $1 or b = $2 or c = $1');
    expect(parsed.names).toEqual(['id', 'name']);
    expect(parsed.sqlite).toBe('select * from t where a = ? or b = ? or c = ?');
    expect(parsed.uses).toEqual(['id', 'name', 'id']);
  });

  it('leaves literals, quoted identifiers, comments, casts and dollar quotes alone', () => {
    const query = `select ':a', ":b", 'it''s :c', x::int, $$ :d $$ -- :e\n/* :f */ from t where y = :g`;
    const parsed = parseQueryParameters(query);
    expect(parsed.names).toEqual(['g']);
    expect(parsed.postgres).toBe(query.replace(':g', '$1'));
  });
});
