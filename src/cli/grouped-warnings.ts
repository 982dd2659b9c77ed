/** How many tool ids a grouped warning lists before it says "and N more". */
const LISTED = 3;

/**
 * Groups warnings that say the same thing about different tools. A conversion warns per tool
 * (`time:now (openai): outputSchema cannot be expressed in this format; dropped`); a catalog of a
 * hundred tools said the same line a hundred times. Warnings of the same format and text become one
 * line that keeps the first tool as its subject and counts the others:
 * `time:now (openai): … (×104: also plantuml:encode, echo:echo, fs:read and 100 more)`.
 * Warnings without a `subject (format): ` prefix are grouped when identical (`… (×3)`). The order
 * is that of each group's first warning.
 */
export function groupWarnings(warnings: readonly string[]): string[] {
  const groups = new Map<string, { first: string; subjects: string[]; count: number }>();
  for (const warning of warnings) {
    const match = /^(\S+) (\([^)]*\)): ([\s\S]*)$/.exec(warning);
    const key = match ? `${match[2]}: ${match[3]}` : warning;
    const group = groups.get(key);
    if (group) {
      group.count++;
      if (match?.[1] !== undefined) group.subjects.push(match[1]);
    } else {
      groups.set(key, { first: warning, subjects: [], count: 1 });
    }
  }
  return [...groups.values()].map(({ first, subjects, count }) => {
    if (count === 1) return first;
    if (subjects.length === 0) return `${first} (×${count})`;
    const listed = subjects.slice(0, LISTED).join(', ');
    const more = subjects.length > LISTED ? ` and ${subjects.length - LISTED} more` : '';
    return `${first} (×${count}: also ${listed}${more})`;
  });
}
