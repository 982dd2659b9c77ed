/**
 * How deep incoming JSON may nest (objects and arrays). Far deeper than any real tool argument,
 * far shallower than what recursive code (schema validation, tools, serialisers) survives: 10,000
 * levels overflowed the stack of a tool and came back as the server's `execution_failed`.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * The JSON pointer of the first value nested deeper than `maxDepth`, or undefined when `value` stays
 * within it. Iterative, so the check itself cannot overflow the stack; the top level is depth 1.
 */
export function pathPastDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 1, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; depth: number; path: string };
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > maxDepth) return item.path || '/';
    for (const [key, child] of Object.entries(item.value)) {
      if (typeof child === 'object' && child !== null) {
        stack.push({ value: child, depth: item.depth + 1, path: `${item.path}/${escapePointer(key)}` });
      }
    }
  }
  return undefined;
}

/** A JSON pointer cut to its first ~80 characters, for messages. */
export function shortPath(pointer: string, max = 80): string {
  return pointer.length <= max ? pointer : `${pointer.slice(0, max)}…`;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
