/**
 * The candidate closest to a mistyped word, for "did you mean" hints on unknown config keys
 * (`comand` → `command`, `timeoutMS` → `timeoutMs`); undefined when none is close enough to be a
 * likely typo rather than a different word.
 */
export function closestKey(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  // Short keys tolerate one edit, longer ones one per four characters: `url` vs `uri`, not `url` vs `env`.
  const limit = Math.max(1, Math.floor(word.length / 4));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Up to `count` candidates nearest to `word`, nearest first (ties in the candidates' order): for
 * "no such thing; the nearest are …" messages, where even a distant candidate helps more than none.
 */
export function nearestKeys(word: string, candidates: Iterable<string>, count = 3): string[] {
  const lower = word.toLowerCase();
  return [...new Set(candidates)]
    .map((candidate, index) => ({ candidate, index, distance: editDistance(lower, candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, count)
    .map((entry) => entry.candidate);
}

/** Damerau–Levenshtein distance (optimal string alignment): a swap of two letters is one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = value;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** ` (did you mean "command"?)`, or the empty string when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closestKey(word, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
