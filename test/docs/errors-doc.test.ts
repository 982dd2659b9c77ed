import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_ERROR_CODES, isGatewayErrorCode } from '../../src/foundation/model/error-codes.js';
import { ERROR_CODE_TABLE } from '../../src/foundation/model/error-tables.js';

/*
 * docs/ERRORS.md is what client authors read: its table must say what the gateway sends. Checked
 * in both directions: every code has a row, every row names a code, and each row's HTTP status,
 * JSON-RPC code, retryability and fault are those of ERROR_CODE_TABLE.
 */

const DOC = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'ERRORS.md'), 'utf8');

interface DocRow {
  code: string;
  meaning: string;
  httpStatus: number;
  jsonRpcCode: number;
  retryable: boolean;
  fault: string;
  mcp: string;
}

/** The rows of the table whose header starts with `| Code |`. */
function docRows(markdown: string): DocRow[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| Code |'));
  expect(header, 'the table of codes in docs/ERRORS.md').toBeGreaterThanOrEqual(0);
  const rows: DocRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim());
    const [code = '', meaning = '', http = '', rpc = '', retryable = '', fault = '', mcp = ''] = cells;
    rows.push({
      code: code.replace(/`/g, ''),
      meaning,
      httpStatus: Number(http),
      jsonRpcCode: Number(rpc),
      retryable: retryable === 'yes' ? true : retryable === 'no' ? false : (undefined as never),
      fault,
      mcp,
    });
  }
  return rows;
}

const rows = docRows(DOC);

describe('docs/ERRORS.md', () => {
  it('has a row for every code, and no row for a code that does not exist', () => {
    const documented = rows.map((row) => row.code);
    const missing = GATEWAY_ERROR_CODES.filter((code) => !documented.includes(code));
    const unknown = documented.filter((code) => !isGatewayErrorCode(code));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
    expect(new Set(documented).size, 'one row per code').toBe(documented.length);
  });

  it('gives each code the status, JSON-RPC code, retryability and fault of the table', () => {
    const mismatches: string[] = [];
    for (const row of rows) {
      if (!isGatewayErrorCode(row.code)) continue;
      const info = ERROR_CODE_TABLE[row.code];
      const expected = {
        httpStatus: info.httpStatus,
        jsonRpcCode: info.jsonRpcCode,
        retryable: info.retryable,
        fault: info.fault,
      };
      const actual = {
        httpStatus: row.httpStatus,
        jsonRpcCode: row.jsonRpcCode,
        retryable: row.retryable,
        fault: row.fault,
      };
      for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
        if (actual[key] !== expected[key]) {
          mismatches.push(
            `${row.code}.${key}: doc says ${String(actual[key])}, table ${String(expected[key])}`,
          );
        }
      }
    }
    expect(mismatches.join('\n')).toBe('');
  });

  it('says what every code means and how MCP carries it', () => {
    for (const row of rows) {
      expect(row.meaning.length, `${row.code} meaning`).toBeGreaterThan(10);
      expect(row.mcp, `${row.code} MCP encoding`).toMatch(/isError result|JSON-RPC error|HTTP|not sent/);
    }
  });
});
