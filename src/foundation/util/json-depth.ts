/**
 * How deep incoming JSON may nest (objects and arrays). Far deeper than any real tool argument,
 * far shallower than what recursive code (schema validation, tools, serialisers) survives: 10,000
 * levels overflowed the stack of a tool and came back as the server's `execution_failed`.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * How deep a tool's JSON Schema may nest. A schema takes about two levels (`properties`, the
 * property) per level of the value it describes, so this admits a schema for any argument
 * {@link MAX_JSON_DEPTH} allows; deeper, the recursive schema code (pattern checks, ajv's
 * compiler, fingerprints) would overflow the stack — 3,000 levels did, failing the whole server.
 */
export const MAX_SCHEMA_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * The JSON pointer of the first value nested deeper than `maxDepth`, or undefined when `value` stays
 * within it. Iterative, so the check itself cannot overflow the stack; the top level is depth 1.
 */
export function pathPastDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // Each entry links to its parent; the pointer is spelled out only for the value that is too deep
  // (every request is checked, and almost none is).
  const stack: Nested[] = [{ value, depth: 1, key: '', parent: undefined }];
  while (stack.length > 0) {
    const item = stack.pop() as Nested;
    if (item.depth > maxDepth) return pointerOf(item) || '/';
    for (const key in item.value) {
      const child = (item.value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        stack.push({ value: child, depth: item.depth + 1, key, parent: item });
      }
    }
  }
  return undefined;
}

/** An object or array met on the way down, with the key it is under in its parent. */
interface Nested {
  value: object;
  depth: number;
  key: string;
  parent: Nested | undefined;
}

function pointerOf(item: Nested): string {
  const keys: string[] = [];
  for (let at: Nested | undefined = item; at?.parent; at = at.parent) keys.push(escapePointer(at.key));
  return keys.length === 0 ? '' : `/${keys.reverse().join('/')}`;
}

/** A JSON pointer cut to its first ~80 characters, for messages. */
export function shortPath(pointer: string, max = 80): string {
  return pointer.length <= max ? pointer : `${pointer.slice(0, max)}…`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
