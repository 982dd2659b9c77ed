import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import { nearestKeys } from '../foundation/util/did-you-mean.js';

/**
 * The caller's mistake when `--namespace NS` names no namespace of the catalog: an empty listing
 * would read as "that namespace has no tools", so say it does not exist and name the nearest ones.
 */
export function unknownNamespaceError(namespace: string, namespaces: Iterable<string>): GatewayError {
  const known = [...new Set(namespaces)].sort();
  const nearest = nearestKeys(namespace, known);
  const tail =
    nearest.length === 0
      ? 'the catalog has no tools'
      : `the nearest are ${nearest.map((ns) => `"${ns}"`).join(', ')}`;
  return new GatewayError('invalid_request', `No namespace "${namespace}" exists; ${tail}`, {
    details: { namespace, nearest },
  });
}

/**
 * When `id` is a bare tool name (no `namespace:`), the `tool_not_found` error naming the full ids
 * of the tools with that name — `ping` → `local:ping` — or undefined when `id` is not bare or no
 * tool has that name (the ordinary "not a tool id" error then applies).
 */
export function bareNameError(
  id: string,
  tools: readonly Pick<Tool, 'id' | 'name'>[],
): GatewayError | undefined {
  if (id.includes(':')) return undefined;
  const matches = tools.filter((tool) => tool.name === id).map((tool) => tool.id);
  if (matches.length === 0) return undefined;
  const message =
    matches.length === 1
      ? `"${id}" is not a tool id; did you mean "${matches[0]}"?`
      : `"${id}" is not a tool id; tools with that name: ${matches.map((m) => `"${m}"`).join(', ')}`;
  return new GatewayError('tool_not_found', message, {
    details: { reason: 'bare_name', candidates: matches },
  });
}
