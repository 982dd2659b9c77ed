/**
 * Runs of 32 or more characters of the base64 / hex alphabet: candidates for pasted data (an
 * image's base64, a hash, a token). A run is data when it holds at least two digits; a long word or
 * an identifier with one version number is not.
 */
const RUN = /[A-Za-z0-9+/=]{32,}/g;
const DIGITS = /\d.*\d/;

/**
 * The query without the data pasted into it, for ranking: "what does this image mean?
 * iVBORw0KGgo…" is ranked as "what does this image mean?". Split into words, a base64 image became
 * dozens of made-up terms ("rw", "ag", "ggo") that matched tools at random and outweighed the
 * request, and its vector was the blob's. A query that is nothing but data is left as it is: it
 * is all there is to rank by.
 */
export function withoutPastedData(query: string): string {
  if (query.length < 32) return query;
  let dropped = false;
  const kept = query.replace(RUN, (run) => {
    if (!DIGITS.test(run)) return run;
    dropped = true;
    return ' ';
  });
  return dropped && kept.trim() !== '' ? kept : query;
}
