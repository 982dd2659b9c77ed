import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { stripJsonComments } from './client-config-files.js';
import { invalidConfigLabel as label } from './config-issues.js';

const require = createRequire(import.meta.url);

/** The syntaxes a config file may be written in. */
export type ConfigFormat = 'yaml' | 'json';

/** The format a file's extension says; YAML for anything else, since YAML also reads JSON. */
export function configFormatOf(file: string): ConfigFormat {
  return extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

/** Where a JSON.parse error happened, from V8's "at position N" (and "line L column C" in newer Nodes). */
function jsonErrorPosition(message: string, text: string): { line: number; column: number } | undefined {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /at position (\d+)/.exec(message);
  if (!position) return undefined;
  const before = text.slice(0, Number(position[1])).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function parseJsonc(text: string, source: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw jsonSyntaxError(error, text, source);
  }
}

function jsonSyntaxError(error: unknown, text: string, source: string | undefined): GatewayError {
  const reason = error instanceof Error ? error.message : String(error);
  const at = jsonErrorPosition(reason, text);
  const where = at ? ` at line ${at.line}, column ${at.column}` : '';
  return new GatewayError('config_invalid', `${label(source)}: JSON syntax error${where}: ${reason}`, {
    details: { path: '(top level)', source, ...at },
    cause: error,
  });
}

/**
 * Parses a config document's text (YAML, or JSON with comments accepted) into a plain value; no
 * interpolation, no schema. An empty or comment-only text is `{}`.
 *
 * @throws GatewayError `config_invalid` naming line and column of the syntax error.
 */
export function parseConfigSyntax(text: string, format: ConfigFormat, source: string | undefined): unknown {
  // An empty (or comment-only) file means "all defaults"; a BOM is an editor artefact, not content.
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return {};
  if (format === 'json') {
    try {
      return JSON.parse(body);
    } catch (error) {
      // VS Code's mcp.json (and Cursor's) may have comments and trailing commas: JSONC is accepted.
      // Stripping keeps every position, so an error in it still names the line and column as written.
      const withoutComments = stripJsonComments(body);
      if (withoutComments !== body) return parseJsonc(withoutComments, source);
      throw jsonSyntaxError(error, body, source);
    }
  }
  // Required on first use (yaml ships CommonJS): start-up without a YAML file skips loading it.
  const YAML = require('yaml') as typeof import('yaml');
  const doc = YAML.parseDocument(body, { prettyErrors: true });
  const [first] = doc.errors;
  if (first !== undefined) {
    // prettyErrors appends a code frame after the first line; the message stays one line, the frame goes to details.
    const [headline = first.message] = first.message.split('\n');
    const position = first.linePos?.[0];
    throw new GatewayError(
      'config_invalid',
      `${label(source)}: YAML syntax error: ${headline.replace(/:$/, '')}`,
      {
        details: {
          path: '(top level)',
          source,
          line: position?.line,
          column: position?.col,
          excerpt: first.message,
        },
        cause: first,
      },
    );
  }
  return doc.toJS() ?? {};
}
