import type { Client, ReadResourceResult, ServerCapabilities } from '@modelcontextprotocol/client';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';

export type { Skill } from '@modelcontextprotocol/client/ext/skills';

/** The capability key of the Skills extension (SEP-2640) in `ServerCapabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** How long a listing is kept at most when the server announces no change (a safety net). */
export const SKILL_LISTING_MAX_AGE_MS = 60_000;

/** A downstream server as its skills need it: `DownstreamServer` is the real one. */
export interface SkillsPeer {
  readonly name: string;
  readonly namespace: string;
  readonly sourceId: string;
  capabilities(): ServerCapabilities | undefined;
  withClient<T>(channel: ClientChannel | undefined, use: (client: Client) => Promise<T>): Promise<T>;
  onNotification(listener: (method: string, params: Record<string, unknown> | undefined) => void): () => void;
}

/** One server's skills as listed: entries in its own URIs, with the listing's caching fields. */
export interface SkillListing {
  skills: Skill[];
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

type SkillsModule = typeof import('@modelcontextprotocol/client/ext/skills');
let skillsModule: Promise<SkillsModule> | undefined;
/** The SDK's skills client, imported once, on first use (as the client SDK itself, `client-sdk.ts`). */
const loadSkillsModule = (): Promise<SkillsModule> =>
  (skillsModule ??= import('@modelcontextprotocol/client/ext/skills'));

/** Whether a server's capabilities declare the Skills extension. */
export function offersSkills(capabilities: ServerCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const value = extensions?.[SKILLS_EXTENSION];
  return typeof value === 'object' && value !== null;
}

/**
 * The skills of one downstream server (the Skills extension, SEP-2640), through the SDK's
 * `SkillsClient` on the server's shared connection: `skills/list` walked through every page
 * (entries the SDK refuses are left out and logged), `skills/get`, and the files' `resources/read`.
 * The listing is kept until the server announces a change — the extension announces one with
 * `notifications/resources/list_changed` — or its connection is replaced, or
 * {@link SKILL_LISTING_MAX_AGE_MS} passes (a server that never announces still gets re-listed).
 * Entries and file contents are passed on as the server made them: their digests stay valid.
 */
export class DownstreamSkills {
  private cached: { client: Client; at: number; listing: Promise<SkillListing> } | undefined;
  private readonly stop: () => void;

  constructor(
    private readonly peer: SkillsPeer,
    private readonly log: Logger,
    private readonly maxAgeMs = SKILL_LISTING_MAX_AGE_MS,
  ) {
    this.stop = peer.onNotification((method) => {
      if (
        method === 'notifications/resources/list_changed' ||
        method === 'notifications/skills/list_changed'
      ) {
        this.cached = undefined;
      }
    });
  }

  /** Whether the server offers skills now (connected and declaring the extension). */
  get offered(): boolean {
    return offersSkills(this.peer.capabilities());
  }

  /** The server's skills, in its own URIs; empty when it offers none. */
  list(): Promise<SkillListing> {
    if (!this.offered) return Promise.resolve({ skills: [] });
    return this.peer.withClient(undefined, async (client) => {
      const kept = this.cached;
      if (kept && kept.client === client && Date.now() - kept.at < this.maxAgeMs) return kept.listing;
      const listing = this.fetch(client);
      const entry = { client, at: Date.now(), listing };
      this.cached = entry;
      // A failed listing is not kept: the next call asks again.
      listing.catch(() => {
        if (this.cached === entry) this.cached = undefined;
      });
      return listing;
    });
  }

  /** One skill by its manifest URI (`…/SKILL.md`) (the server's own), as the server answers `skills/get`. */
  get(uri: string): Promise<{ skill: Skill; ttlMs?: number; cacheScope?: 'public' | 'private' }> {
    return this.peer.withClient(undefined, async (client) => {
      const { SkillsClient } = await loadSkillsModule();
      return new SkillsClient(client).get(uri);
    });
  }

  /** Whether the server serves `resources/directory/read` (its capability's `directoryRead`). */
  get directoryRead(): boolean {
    const extensions = (this.peer.capabilities() as { extensions?: Record<string, unknown> } | undefined)
      ?.extensions;
    return (
      (extensions?.[SKILLS_EXTENSION] as { directoryRead?: unknown } | undefined)?.directoryRead === true
    );
  }

  /** The children of a skill directory (the server's own URI), every page walked. */
  readDirectory(uri: string): Promise<{
    resources: { uri: string; name: string; [key: string]: unknown }[];
    ttlMs?: number;
    cacheScope?: 'public' | 'private';
  }> {
    return this.peer.withClient(undefined, async (client) => {
      const { SkillsClient } = await loadSkillsModule();
      return new SkillsClient(client).readDirectory(uri);
    });
  }

  /** A skill file (the server's own URI), as the server answers `resources/read`. */
  read(uri: string): Promise<ReadResourceResult> {
    return this.peer.withClient(undefined, (client) => client.readResource({ uri }));
  }

  /** Stops following the server's notifications. */
  close(): void {
    this.stop();
    this.cached = undefined;
  }

  private async fetch(client: Client): Promise<SkillListing> {
    const { SkillsClient } = await loadSkillsModule();
    const listing = await new SkillsClient(client, { skipInvalid: true }).list();
    if (listing.invalid.length > 0) {
      this.log.warn(
        {
          server: this.peer.name,
          invalid: listing.invalid.map((entry) => `${entry.uri ?? ''}: ${entry.reason}`),
        },
        'skills/list entries left out',
      );
    }
    return {
      skills: listing.skills,
      ...(listing.ttlMs === undefined ? {} : { ttlMs: listing.ttlMs }),
      ...(listing.cacheScope === undefined ? {} : { cacheScope: listing.cacheScope }),
    };
  }
}
