import type { ErrorHint, GatewayError } from './gateway-error.js';

/** The surfaces that present errors to a caller. */
export type ErrorSurface = 'mcp' | 'rest' | 'cli' | 'a2a';

/** Each hint per surface: it must name what this caller can actually call. */
const HINTS: Readonly<Record<ErrorHint, Readonly<Record<ErrorSurface, string>>>> = {
  find_tool: {
    mcp: 'use search_tools to find tool ids',
    rest: 'find tool ids with GET /api/tools?q=<what you need>',
    cli: 'find tool ids with `aperture search "<what you need>"`',
    a2a: 'send a text message saying what you need to find tool ids',
  },
  find_toolset: {
    mcp: 'list_toolsets names the toolsets',
    rest: 'the toolsets are those the gateway config declares under `toolsets`',
    cli: 'the toolsets are those the config declares under `toolsets`',
    a2a: 'the toolsets are those the gateway config declares under `toolsets`',
  },
};

/**
 * The error as `surface` presents it: its hint, if it carries one, appended in the surface's own
 * terms (`search_tools` means nothing to a REST client or a shell user). The hint is consumed, so
 * presenting the result again changes nothing.
 */
export function errorForSurface(error: GatewayError, surface: ErrorSurface): GatewayError {
  if (error.hint === undefined) return error;
  return error.with({ message: `${error.message}; ${HINTS[error.hint][surface]}`, hint: undefined });
}
