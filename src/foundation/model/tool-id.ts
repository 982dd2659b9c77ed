import { GatewayError } from './gateway-error.js';

/** The parts of a tool id `namespace:name[:version]`. */
export interface ToolIdParts {
  namespace: string;
  name: string;
  version?: string;
}

const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/**
 * A name: no whitespace, no `:` (the id separator), no control character (`\p{Cc}`: C0, DEL, C1 —
 * terminal escapes) and no format character (`\p{Cf}`: zero-width characters, bidirectional
 * overrides and isolates, soft hyphen) — an id that renders like another, or other than it is,
 * must not exist.
 */
const NAME = /^[^\s:\p{Cc}\p{Cf}]{1,128}$/u;

/**
 * Parses `namespace:name` or `namespace:name:version`. Throws `tool_not_found` for a malformed id:
 * from the caller's point of view no tool has that id.
 */
export function parseToolId(id: string): ToolIdParts {
  const parts = typeof id === 'string' ? id.split(':') : [];
  const [namespace, name, version] = parts;
  if (
    parts.length < 2 ||
    parts.length > 3 ||
    namespace === undefined ||
    name === undefined ||
    !NAMESPACE.test(namespace) ||
    !NAME.test(name) ||
    (version !== undefined && !NAME.test(version))
  ) {
    throw new GatewayError(
      'tool_not_found',
      `"${String(id)}" is not a tool id; ids look like "namespace:name"`,
      { details: { reason: 'malformed_id' }, hint: 'find_tool' },
    );
  }
  return version === undefined ? { namespace, name } : { namespace, name, version };
}

/** Formats parts back into an id; the inverse of `parseToolId`. */
export function formatToolId(parts: ToolIdParts): string {
  const base = `${parts.namespace}:${parts.name}`;
  return parts.version === undefined ? base : `${base}:${parts.version}`;
}

/** True when `namespace` is usable as a tool namespace. */
export function isValidNamespace(namespace: string): boolean {
  return NAMESPACE.test(namespace);
}

/**
 * True when `name` is usable as a tool name inside a namespace: 1–128 characters, none of them
 * whitespace, `:`, a control or a format (invisible, bidirectional) character.
 */
export function isValidToolName(name: string): boolean {
  return NAME.test(name);
}
