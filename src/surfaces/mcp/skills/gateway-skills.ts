import type { ReadResourceResult } from '@modelcontextprotocol/server';
import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import type { SkillCatalog } from '../../../composition/skills/skill-catalog.js';
import type { PlanScope } from '../../../composition/skills/skill-plan.js';
import type { Tool } from '../../../foundation/model/tool.js';
import type { Logger } from '../../../foundation/ports/logger.js';
import type { DownstreamSkills, SkillListing } from '../../../sources/mcp/downstream-skills.js';
import {
  type ConfiguredSkillEntry,
  configuredSkillEntry,
  SKILL_TOOL_META_KEY,
} from './configured-skill-entries.js';
import type { SkillAction, SkillGate } from './skill-gate.js';
import { skillRoot, skillUriToClient, splitSkillUri } from './skill-uris.js';

/** A downstream server that may offer skills, with its `prefix` setting (as for tool names). */
export interface SkillServer {
  readonly name: string;
  readonly namespace: string;
  /** Its catalog source (`mcp:<name>`): a confined caller sees its skills if it sees one of its tools. */
  readonly sourceId: string;
  readonly prefix: boolean;
  readonly skills: DownstreamSkills;
}

/** What one caller may see: the tools of its scope decide (see {@link GatewaySkills}). */
export interface SkillView {
  scope: PlanScope & { tools(): readonly Tool[] };
  /** A toolset or a policy narrows the caller's scope: only servers with a visible tool count. */
  confined: boolean;
  /**
   * The stages gets and reads pass, and the policies that hide a skill from this caller
   * (`skill-gate.ts`); absent: nothing is gated (a test, a surface without policies).
   */
  gate?: SkillGate;
}

/** The client's request a get or read answers (its cancellation, session, response stream). */
export type SkillRequest = NonNullable<Parameters<SkillGate['run']>[1]>;

/** The caching fields of an aggregated answer (2026-07-28): the smallest TTL of its sources, `private`. */
export interface SkillCacheFields {
  ttlMs: number;
  cacheScope: 'private';
}

/** A skill `search_tools` found, marked as such (`kind: "skill"`). */
export interface SkillHit {
  kind: 'skill';
  /** The manifest URI (`…/SKILL.md`) to `skills/get` or read. */
  uri: string;
  name: string;
  description: string;
  /** The downstream server that offers it. */
  server?: string;
  /** A configured skill: the tool `run_skill` runs. */
  tool_id?: string;
  score: number;
}

export interface GatewaySkillsOptions {
  /** The downstream servers now, in config order (the first wins a URI two unprefixed ones list). */
  servers: () => readonly SkillServer[];
  /** The configured skills now, if any. */
  configured: () => SkillCatalog | undefined;
  log: Logger;
  /** How long one server's `skills/list` may take before the others are answered without it. */
  listTimeoutMs?: number;
}

/**
 * Where a gateway skill URI leads, and the skills it may belong to as the gate sees them (empty
 * when the view has no gate): one, or — for a file no listed skill holds — every directory of its
 * path, each of which must pass.
 */
type Route =
  | { kind: 'configured'; entry: ConfiguredSkillEntry; actions: SkillAction[] }
  | { kind: 'server'; server: SkillServer; original: string; actions: SkillAction[] };

/** What a URI names: a skill's manifest (`skills/get`), one of its files, or a directory. */
type UriRole = 'manifest' | 'file' | 'directory';

/**
 * A read of a skill URI the caller must not know (its skill is hidden by the policies): answered
 * as for a URI nobody serves, and not passed on to another handler of `resources/read`.
 */
export class HiddenSkillUri extends Error {
  constructor(readonly uri: string) {
    super(`Resource not found: ${uri}`);
  }
}

/** One server's skills as a caller sees them, or its failure. */
interface ServerListing {
  server: SkillServer;
  listing: SkillListing;
}

const DEFAULT_LIST_TIMEOUT_MS = 10_000;

/**
 * The Skills extension (SEP-2640) as the gateway serves it: the skills of every downstream server
 * that offers the extension, aggregated, and the gateway's own configured skills, for one caller.
 *
 * - **Naming**: a server's `skill://<path>` is `skill://<namespace>/<path>` (`skillUriToClient`),
 *   unless the server has `prefix: false`; configured skills are `skill://skill/<name>/SKILL.md`.
 *   Entries, file lists and contents are otherwise passed on as the server made them, so each
 *   file's digest and size still hold for the bytes the client reads.
 * - **Visibility**: an unconfined caller sees every server's skills; a caller whose scope a toolset
 *   or a policy narrows sees a server's skills only when it can see at least one of that server's
 *   tools, and a configured skill only when it can see its tool `skill:<name>` (as `list_skills`).
 *   A skill it cannot see is unknown to it: `skills/get` and reads answer as for no such skill.
 * - **Policies** (`view.gate`): a skill is the action `<namespace>:skills/get` with `{ name }`
 *   (configured skills: namespace `skill`, `name` the entry's). Its get and every read of its
 *   files pass the gate's stages; with `policies.hideDenied`, a skill whose get a rule denies is
 *   left out of lists and search and is unknown to its get and reads.
 * - **Failures**: a server whose `skills/list` fails or takes longer than `listTimeoutMs` is left
 *   out of that answer (logged); the others are answered.
 */
export class GatewaySkills {
  private configuredCache:
    | { catalog: SkillCatalog; entries: ConfiguredSkillEntry[]; at: unknown }
    | undefined;

  /** Skills left out because an earlier server lists their URI, each logged once. */
  private readonly shadowed = new Set<string>();

  constructor(private readonly options: GatewaySkillsOptions) {}

  /** Whether a session should be offered the extension: configured skills, or a server offering skills. */
  get available(): boolean {
    return (this.options.configured()?.size ?? 0) > 0 || this.options.servers().some((s) => s.skills.offered);
  }

  /** Every skill `view` may see, named for the client, configured ones first; with caching fields. */
  async list(view: SkillView): Promise<{ skills: Skill[] } & SkillCacheFields> {
    const { skills, ttls } = await this.visibleSkills(view);
    return { skills, ...cacheFields(ttls) };
  }

  /**
   * Whether a URI is a file (or directory) of a skill the policies hide from `view`'s caller, in
   * the client's form or its server's own (the passthrough's naming keeps a single server's own
   * URIs): another listing that names skill files (the passthrough's `resources/list`) leaves it
   * out. Undefined when `view` hides no skill.
   */
  async hiddenFiles(view: SkillView): Promise<((uri: string) => boolean) | undefined> {
    if (!view.gate?.mayHide()) return undefined;
    const { hidden, hiddenOwn } = await this.visibleSkills(view);
    if (hidden.length === 0) return undefined;
    const roots = [...hidden, ...hiddenOwn].flatMap((skill) => skillRoot(skill.uri) ?? []);
    return (uri) => roots.some((root) => uri === root || uri.startsWith(`${root}/`));
  }

  /** The skills `view` may see, named for the client, and those the policies hide from it. */
  private async visibleSkills(
    view: SkillView,
  ): Promise<{ skills: Skill[]; hidden: Skill[]; hiddenOwn: Skill[]; ttls: (number | undefined)[] }> {
    // No per-skill question at all when no policy can hide anything from this caller.
    const gate = view.gate?.mayHide() ? view.gate : undefined;
    const own: Skill[] = [];
    const hidden: Skill[] = [];
    /** Hidden skills of servers as the servers name them. */
    const hiddenOwn: Skill[] = [];
    for (const entry of this.configuredEntries(view)) {
      (gate?.hides(configuredAction(entry)) ? hidden : own).push(entry.skill);
    }
    const listings = await this.serverListings(view);
    const seen = new Set([...own, ...hidden].map((skill) => skill.uri));
    const skills = [...own];
    for (const { server, listing } of listings) {
      for (const skill of listing.skills) {
        const named = toClient(server, skill);
        // Two unprefixed servers listing one URI: the first configured wins it, as a prompt name;
        // the other's skill is left out, said once in the log rather than shadowed in silence.
        if (seen.has(named.uri)) {
          const key = `${server.name}\u0000${named.uri}`;
          if (!this.shadowed.has(key)) {
            this.shadowed.add(key);
            this.options.log.warn(
              { server: server.name, uri: named.uri },
              'skill left out: an earlier server lists the same URI (set prefix to tell them apart)',
            );
          }
          continue;
        }
        seen.add(named.uri);
        // Hidden after it took its URI: a later unprefixed server's skill of that URI stays out
        // (its get would reach this server, which lists it first).
        if (gate?.hides({ target: server, name: skill.frontmatter.name })) {
          hidden.push(named);
          hiddenOwn.push(skill);
        } else skills.push(named);
      }
    }
    return { skills, hidden, hiddenOwn, ttls: listings.map((l) => l.listing.ttlMs) };
  }

  /**
   * One skill by its gateway manifest URI (`…/SKILL.md`) (listed or not), from the server that offers it.
   * Undefined when `view` sees no skill there.
   */
  async get(
    uri: string,
    view: SkillView,
    request?: SkillRequest,
  ): Promise<({ skill: Skill } & SkillCacheFields) | undefined> {
    const route = await this.route(uri, view, 'manifest');
    if (!route || hides(route, view)) return undefined;
    return gated(route, view, request, async () => {
      if (route.kind === 'configured') return { skill: route.entry.skill, ...cacheFields([]) };
      const answer = await route.server.skills.get(route.original);
      return { skill: toClient(route.server, answer.skill), ...cacheFields([answer.ttlMs]) };
    });
  }

  /**
   * A skill file by its gateway URI, from the server that offers it, its contents named for the
   * client (bytes untouched). Undefined when the URI is no skill file `view` may see here; throws
   * {@link HiddenSkillUri} when it is one of a skill the policies hide.
   */
  async read(uri: string, view: SkillView, request?: SkillRequest): Promise<ReadResourceResult | undefined> {
    const route = await this.route(uri, view, 'file');
    if (!route) return undefined;
    if (route.kind === 'configured' && uri !== route.entry.skill.uri) return undefined;
    if (hides(route, view)) throw new HiddenSkillUri(uri);
    return gated(route, view, request, async () => {
      if (route.kind === 'configured') {
        return { contents: [{ uri, mimeType: 'text/markdown', text: route.entry.text }] };
      }
      const result = await route.server.skills.read(route.original);
      return {
        ...result,
        contents: result.contents.map((content) => ({
          ...content,
          uri: skillUriToClient(route.server.namespace, content.uri, route.server.prefix),
        })),
      } as ReadResourceResult;
    });
  }

  /**
   * Runs `execute` — another handler's read of `uri` (the passthrough's) — as a read of the skills
   * that URI may be a file of: a URI in a server's own form (`skill://pdf-tools/SKILL.md` of a
   * namespaced server), which the passthrough routes to whichever server lists it. Each such skill
   * of a server `view` sees must pass the gate; throws {@link HiddenSkillUri} when the policies hide
   * one. Any other URI runs at once.
   */
  async passOn<T>(
    uri: string,
    view: SkillView,
    request: SkillRequest | undefined,
    execute: () => Promise<T>,
  ): Promise<T> {
    if (!view.gate) return execute();
    const actions = await this.ownFormActions(uri, view);
    if (actions.length === 0) return execute();
    if (hides({ actions }, view)) throw new HiddenSkillUri(uri);
    return gated({ actions }, view, request, execute);
  }

  /**
   * Whether `uri`, in the client's form or a server's own, is a file of a skill the policies hide
   * from `view`'s caller (a subscription to it is answered as to a URI nobody serves).
   */
  async hidesFile(uri: string, view: SkillView): Promise<boolean> {
    if (!view.gate?.mayHide()) return false;
    if ((await this.hiddenFiles(view))?.(uri)) return true;
    return hides({ actions: await this.ownFormActions(uri, view) }, view);
  }

  /** The skills of namespaced servers `view` sees whose own URIs (unprefixed) hold `uri`. */
  private async ownFormActions(uri: string, view: SkillView): Promise<SkillAction[]> {
    const actions: SkillAction[] = [];
    for (const server of this.visibleServers(view)) {
      if (!server.prefix) continue;
      const listing = await server.skills.list().catch(() => undefined);
      const holder = holderOf(listing?.skills ?? [], uri);
      if (holder) actions.push({ target: server, name: holder.frontmatter.name });
    }
    return actions;
  }

  /** Whether a server `view` may see serves `resources/directory/read`. */
  directoryRead(view: SkillView): boolean {
    return this.visibleServers(view).some((server) => server.skills.directoryRead);
  }

  /**
   * The children of a skill directory by its gateway URI, from the server that offers it, named for
   * the client. Undefined when no server `view` may see serves directories there.
   */
  async readDirectory(
    uri: string,
    view: SkillView,
    request?: SkillRequest,
  ): Promise<({ resources: { uri: string; name: string }[] } & SkillCacheFields) | undefined> {
    const route = await this.route(uri, view, 'directory');
    if (route?.kind !== 'server' || !route.server.skills.directoryRead || hides(route, view))
      return undefined;
    const { resources, ttlMs } = await gated(route, view, request, () =>
      route.server.skills.readDirectory(route.original),
    );
    // A directory above skills names their directories: those of hidden skills are left out.
    const hidden = await this.hiddenFiles(view);
    const named = resources.map((resource) => ({
      ...resource,
      uri: skillUriToClient(route.server.namespace, resource.uri, route.server.prefix),
    }));
    return {
      resources: hidden ? named.filter((resource) => !hidden(resource.uri)) : named,
      ...cacheFields([ttlMs]),
    };
  }

  /**
   * The skills `view` may see that match `query`, best first: each query word found in the name
   * counts twice, in the description once. At most `limit`.
   */
  async search(query: string, view: SkillView, limit = 5): Promise<SkillHit[]> {
    const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])];
    if (words.length === 0) return [];
    const { skills } = await this.list(view);
    const servers = new Map(this.options.servers().map((s) => [s.namespace, s]));
    const hits: SkillHit[] = [];
    for (const skill of skills) {
      const name = skill.frontmatter.name.toLowerCase();
      const description = skill.frontmatter.description.toLowerCase();
      const score = words.reduce(
        (sum, word) => sum + (name.includes(word) ? 2 : 0) + (description.includes(word) ? 1 : 0),
        0,
      );
      if (score === 0) continue;
      const toolId = skill._meta?.[SKILL_TOOL_META_KEY];
      const server =
        typeof toolId === 'string' ? undefined : servers.get(splitSkillUri(skill.uri)?.namespace ?? '');
      hits.push({
        kind: 'skill',
        uri: skill.uri,
        name: skill.frontmatter.name,
        description: skill.frontmatter.description,
        ...(server ? { server: server.name } : {}),
        ...(typeof toolId === 'string' ? { tool_id: toolId } : {}),
        score,
      });
    }
    return hits.sort((a, b) => b.score - a.score || a.uri.localeCompare(b.uri)).slice(0, limit);
  }

  private visibleServers(view: SkillView): SkillServer[] {
    const offered = this.options.servers().filter((server) => server.skills.offered);
    if (!view.confined) return offered;
    const sources = new Set(view.scope.tools().map((tool) => tool.origin.sourceId));
    return offered.filter((server) => sources.has(server.sourceId));
  }

  private async serverListings(view: SkillView): Promise<ServerListing[]> {
    const servers = this.visibleServers(view);
    const timeoutMs = this.options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
    const settled = await Promise.all(
      servers.map(async (server) => {
        try {
          return { server, listing: await withTimeout(server.skills.list(), timeoutMs) };
        } catch (error) {
          this.options.log.warn(
            { server: server.name, err: error instanceof Error ? error.message : String(error) },
            'skills/list of a server failed; answered without its skills',
          );
          return undefined;
        }
      }),
    );
    return settled.filter((listing): listing is ServerListing => listing !== undefined);
  }

  private configuredEntries(view: SkillView): ConfiguredSkillEntry[] {
    const catalog = this.options.configured();
    if (!catalog) return [];
    // Rebuilt when the skills change (a reload compiles changed skills anew, new objects).
    const all = catalog.all();
    if (this.configuredCache?.catalog !== catalog || !sameItems(this.configuredCache.at, all)) {
      const entries: ConfiguredSkillEntry[] = [];
      const uris = new Set<string>();
      for (const skill of all) {
        const entry = configuredSkillEntry(skill);
        if (!entry || uris.has(entry.skill.uri)) continue;
        uris.add(entry.skill.uri);
        entries.push(entry);
      }
      this.configuredCache = { catalog, entries, at: all };
    }
    const visible = new Set(catalog.visibleIn(view.scope).map((s) => s.name));
    return this.configuredCache.entries.filter((entry) => visible.has(entry.name));
  }

  private async route(uri: string, view: SkillView, role: UriRole): Promise<Route | undefined> {
    const configured = this.configuredEntries(view).find(
      (entry) => uri === entry.skill.uri || uri.startsWith(`${skillRoot(entry.skill.uri)}/`),
    );
    if (configured) {
      return {
        kind: 'configured',
        entry: configured,
        actions: view.gate ? [configuredAction(configured)] : [],
      };
    }
    const servers = this.visibleServers(view);
    const split = splitSkillUri(uri);
    const prefixed = split && servers.find((s) => s.prefix && s.namespace === split.namespace);
    if (split && prefixed) {
      const actions = view.gate ? await skillActions(prefixed, split.original, role) : [];
      return { kind: 'server', server: prefixed, original: split.original, actions };
    }
    // An unprefixed server's URI is its own: the server whose listed skill holds it.
    for (const server of servers.filter((s) => !s.prefix)) {
      const listing = await server.skills.list().catch(() => undefined);
      const holder = holderOf(listing?.skills ?? [], uri);
      if (holder) {
        const actions = view.gate ? [{ target: server, name: holder.frontmatter.name }] : [];
        return { kind: 'server', server, original: uri, actions };
      }
    }
    return undefined;
  }
}

/** A configured skill as the gate sees it: namespace `skill` (its tool's), its source the tool. */
function configuredAction(entry: ConfiguredSkillEntry): SkillAction {
  const toolId = entry.skill._meta?.[SKILL_TOOL_META_KEY];
  return {
    target: {
      namespace: splitSkillUri(entry.skill.uri)?.namespace ?? 'skill',
      sourceId: typeof toolId === 'string' ? toolId : `skill:${entry.name}`,
    },
    name: entry.skill.frontmatter.name,
  };
}

/** The listed skill whose directory holds `uri` (the server's own form), the innermost one. */
function holderOf(skills: readonly Skill[], uri: string): Skill | undefined {
  let best: { skill: Skill; length: number } | undefined;
  for (const skill of skills) {
    const root = skillRoot(skill.uri);
    const holds = skill.uri === uri || (root !== undefined && (uri === root || uri.startsWith(`${root}/`)));
    const length = root?.length ?? skill.uri.length;
    if (holds && (!best || length > best.length)) best = { skill, length };
  }
  return best?.skill;
}

/**
 * The skills a URI of `server` (its own form) may belong to, as the gate sees them: the name a
 * manifest URI gives (its directory's), else the listed skill that holds it, else — a skill the
 * server does not list — every directory of its path, so that a rule denying any of them applies
 * (`name: ""` for a file in no directory).
 */
async function skillActions(server: SkillServer, original: string, role: UriRole): Promise<SkillAction[]> {
  const action = (name: string): SkillAction => ({ target: server, name });
  const root = role === 'manifest' ? skillRoot(original) : undefined;
  const named = root === undefined ? undefined : lastSegment(root);
  if (named) return [action(named)];
  const listing = await server.skills.list().catch(() => undefined);
  const holder = holderOf(listing?.skills ?? [], original);
  if (holder) return [action(holder.frontmatter.name)];
  const segments = pathSegments(original);
  const directories = role === 'directory' ? segments : segments.slice(0, -1);
  return directories.length === 0 ? [action('')] : directories.map(action);
}

/** The path segments of a URI after its scheme (`skill://a/b/c` → `a`, `b`, `c`). */
function pathSegments(uri: string): string[] {
  const rest = uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[?#].*$/, '');
  return rest.split('/').filter((segment) => segment !== '');
}

function lastSegment(uri: string): string | undefined {
  return pathSegments(uri).at(-1);
}

/** Whether the policies hide one of the skills a route may belong to from `view`'s caller. */
function hides(route: Pick<Route, 'actions'>, view: SkillView): boolean {
  const gate = view.gate;
  if (!gate?.mayHide()) return false;
  return route.actions.some((action) => gate.hides(action));
}

/**
 * Runs `execute` through the gate once per skill the route may belong to (each must pass; one in
 * the usual case), or at once without a gate. The gate's refusal is its GatewayError.
 */
function gated<T>(
  route: Pick<Route, 'actions'>,
  view: SkillView,
  request: SkillRequest | undefined,
  execute: () => Promise<T>,
): Promise<T> {
  const gate = view.gate;
  if (!gate) return execute();
  const run = route.actions.reduceRight<() => Promise<T>>(
    (inner, action) => () => gate.run(action, request, inner),
    execute,
  );
  return run();
}

/** `_meta` key of a downstream skill's entry: the server (its key in `servers`) that offers it. */
export const SKILL_SERVER_META_KEY = 'io.aperture/server';

/** A server's skill entry named for the client: its URI and its files' URIs (digests as they are). */
function toClient(server: SkillServer, skill: Skill): Skill {
  const name = (uri: string) => skillUriToClient(server.namespace, uri, server.prefix);
  return {
    ...skill,
    // Which server behind the gateway the skill comes from (a skill's identity is its origin and URI).
    _meta: { ...skill._meta, [SKILL_SERVER_META_KEY]: server.name },
    uri: name(skill.uri),
    resources:
      skill.resources === 'dynamic'
        ? 'dynamic'
        : skill.resources.map((resource) => ({ ...resource, uri: name(resource.uri) })),
  };
}

/** The smallest TTL of the sources (a source without one counts as 0), always `private`: it is per caller. */
function cacheFields(ttls: readonly (number | undefined)[]): SkillCacheFields {
  const known = ttls.map((ttl) => ttl ?? 0);
  return { ttlMs: known.length === 0 ? 0 : Math.max(0, Math.min(...known)), cacheScope: 'private' };
}

function sameItems(previous: unknown, next: readonly unknown[]): boolean {
  return (
    Array.isArray(previous) &&
    previous.length === next.length &&
    previous.every((item, i) => item === next[i])
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
