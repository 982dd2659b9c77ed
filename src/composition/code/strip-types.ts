import { GatewayError } from '../../foundation/model/gateway-error.js';

const OPEN = 'async function __aperture_body__() {\n';
const CLOSE = '\n}\n';

/**
 * Strips TypeScript types from a code-mode program (the body of an async function) with
 * esbuild. The body is wrapped in a function so `return` and top-level `await` parse, then
 * unwrapped. A syntax error is `invalid_request` with the line and column in the user's code.
 */
export async function stripTypes(body: string): Promise<string> {
  // Loaded on first use: most gateways never see TypeScript, and start-up time matters.
  const { transformSync } = await import('esbuild');
  let code: string;
  try {
    code = transformSync(`${OPEN}${body}${CLOSE}`, {
      loader: 'ts',
      format: 'esm',
      target: 'es2022',
      legalComments: 'none',
      logLevel: 'silent',
    }).code;
  } catch (error) {
    const first = (
      error as { errors?: { text: string; location?: { line: number; column: number } | null }[] }
    ).errors?.[0];
    const line = first?.location ? first.location.line - 1 : undefined;
    const column = first?.location ? first.location.column + 1 : undefined;
    throw new GatewayError(
      'invalid_request',
      `TypeScript syntax error${line !== undefined ? ` at line ${line}, column ${column}` : ''}: ${first?.text ?? String(error)}`,
      { details: { line, column } },
    );
  }
  const start = code.indexOf('{\n');
  const end = code.lastIndexOf('}');
  if (!code.startsWith('async function __aperture_body__()') || start === -1 || end <= start) {
    throw new GatewayError('internal', 'Unexpected output while stripping TypeScript types');
  }
  return code.slice(start + 2, end);
}
