/**
 * The anchor of a heading, as GitHub makes it: lower case, punctuation dropped, each space a `-`.
 * The site uses it too (docs/.vitepress/config.mts), so a link written for GitHub
 * (`SEARCH.md#4-hybrid-fusion-…`) works on both, and the generated reference pages link to their
 * own headings with it.
 */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
