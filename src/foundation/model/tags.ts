/**
 * Normalises tags: lowercase, runs of whitespace to `-`, only `[a-z0-9-_.]` kept, empty ones
 * dropped, duplicates removed (first occurrence order kept).
 */
export function normalizeTags(tags: readonly string[] | undefined): string[] {
  if (!tags) return [];
  const seen = new Set<string>();
  for (const raw of tags) {
    if (typeof raw !== 'string') continue;
    const tag = raw
      .trim()
      .toLowerCase()
      .replace(/\s+/g, '-')
      .replace(/[^a-z0-9\-_.]/g, '');
    if (tag) seen.add(tag);
  }
  return [...seen];
}
