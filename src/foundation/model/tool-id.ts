import { GatewayError } from './gateway-error.js';

/** The parts of a tool id `namespace:name[:version]`. */
export interface ToolIdParts {
  namespace: string;
  name: string;
  version?: string;
}

const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NAME = /^[^\s:]{1,128}$/;

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

/** True when `name` is usable as a tool name inside a namespace. */
export function isValidToolName(name: string): boolean {
  return NAME.test(name);
}
