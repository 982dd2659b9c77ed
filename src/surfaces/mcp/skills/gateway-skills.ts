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
}

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

/** Where a gateway skill URI leads. */
type Route =
  | { kind: 'configured'; entry: ConfiguredSkillEntry }
  | { kind: 'server'; server: SkillServer; original: string };

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
    const own = this.configuredEntries(view).map((entry) => entry.skill);
    const listings = await this.serverListings(view);
    const seen = new Set(own.map((skill) => skill.uri));
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
        skills.push(named);
      }
    }
    return { skills, ...cacheFields(listings.map((l) => l.listing.ttlMs)) };
  }

  /**
   * One skill by its gateway manifest URI (`…/SKILL.md`) (listed or not), from the server that offers it.
   * Undefined when `view` sees no skill there.
   */
  async get(uri: string, view: SkillView): Promise<({ skill: Skill } & SkillCacheFields) | undefined> {
    const route = await this.route(uri, view);
    if (!route) return undefined;
    if (route.kind === 'configured') return { skill: route.entry.skill, ...cacheFields([]) };
    const answer = await route.server.skills.get(route.original);
    return { skill: toClient(route.server, answer.skill), ...cacheFields([answer.ttlMs]) };
  }

  /**
   * A skill file by its gateway URI, from the server that offers it, its contents named for the
   * client (bytes untouched). Undefined when the URI is no skill file `view` may see here.
   */
  async read(uri: string, view: SkillView): Promise<ReadResourceResult | undefined> {
    const route = await this.route(uri, view);
    if (!route) return undefined;
    if (route.kind === 'configured') {
      if (uri !== route.entry.skill.uri) return undefined;
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
  ): Promise<({ resources: { uri: string; name: string }[] } & SkillCacheFields) | undefined> {
    const route = await this.route(uri, view);
    if (route?.kind !== 'server' || !route.server.skills.directoryRead) return undefined;
    const { resources, ttlMs } = await route.server.skills.readDirectory(route.original);
    return {
      resources: resources.map((resource) => ({
        ...resource,
        uri: skillUriToClient(route.server.namespace, resource.uri, route.server.prefix),
      })),
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

  private async route(uri: string, view: SkillView): Promise<Route | undefined> {
    const configured = this.configuredEntries(view).find(
      (entry) => uri === entry.skill.uri || uri.startsWith(`${skillRoot(entry.skill.uri)}/`),
    );
    if (configured) return { kind: 'configured', entry: configured };
    const servers = this.visibleServers(view);
    const split = splitSkillUri(uri);
    const prefixed = split && servers.find((s) => s.prefix && s.namespace === split.namespace);
    if (split && prefixed) return { kind: 'server', server: prefixed, original: split.original };
    // An unprefixed server's URI is its own: the server whose listed skill holds it.
    for (const server of servers.filter((s) => !s.prefix)) {
      const listing = await server.skills.list().catch(() => undefined);
      const holds = listing?.skills.some((skill) => {
        const root = skillRoot(skill.uri);
        return skill.uri === uri || (root !== undefined && (uri === root || uri.startsWith(`${root}/`)));
      });
      if (holds) return { kind: 'server', server, original: uri };
    }
    return undefined;
  }
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
