/** The scheme of the Skills extension's URIs (SEP-2640): `skill://<path>/SKILL.md`. */
export const SKILL_SCHEME = 'skill://';

/**
 * A downstream skill URI as the gateway's clients see it. With `prefix` (the default, as tools get
 * `namespace__`), the server's namespace becomes the URI's first segment: `skill://pdf/SKILL.md`
 * of the server `docs` is `skill://docs/pdf/SKILL.md`. That is the extension's own organisational
 * prefix (the SDK's catalog `prefix: 'acme'` serves `skill://acme/<skill>/…`): the skill's
 * directory, hence its name, is unchanged, so the entry's frontmatter and every file's bytes and
 * digest stay valid. Without `prefix` (the server's `prefix: false`), or for a URI of another
 * scheme (a server's own `baseUri`), the URI is left as it is and routed by the listing.
 */
export function skillUriToClient(namespace: string, uri: string, prefix: boolean): string {
  if (!prefix || !uri.startsWith(SKILL_SCHEME)) return uri;
  return `${SKILL_SCHEME}${namespace}/${uri.slice(SKILL_SCHEME.length)}`;
}

/**
 * The namespace a gateway skill URI names and the URI its server knows (`skillUriToClient`
 * reversed), or undefined when `uri` is no `skill://<namespace>/<rest>` URI.
 */
export function splitSkillUri(uri: string): { namespace: string; original: string } | undefined {
  if (!uri.startsWith(SKILL_SCHEME)) return undefined;
  const rest = uri.slice(SKILL_SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { namespace: rest.slice(0, slash), original: `${SKILL_SCHEME}${rest.slice(slash + 1)}` };
}

/** The root directory of a skill (its manifest URI without `/SKILL.md`), or undefined. */
export function skillRoot(skillMdUri: string): string | undefined {
  const suffix = '/SKILL.md';
  return skillMdUri.endsWith(suffix) ? skillMdUri.slice(0, -suffix.length) : undefined;
}

/**
 * A name that follows the Agent Skills rule (1-64 lowercase letters, digits and single hyphens),
 * made from a configured skill's name: `Release_Notes` → `release-notes`. Empty when nothing of
 * the name is left.
 */
export function skillSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}
