import { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import type { ApertureConfig } from '../../config/config-schema.js';
import { DownstreamSkills } from '../../sources/mcp/downstream-skills.js';
import { GatewaySkills, type SkillServer } from '../../surfaces/mcp/skills/gateway-skills.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** The configured skills (tools `skill:<name>`), when there are any; a reload may add them. */
    skills: { readonly current: SkillCatalog | undefined };
    /** The Skills extension (SEP-2640): downstream servers' skills and the configured ones, per caller. */
    skillsExtension: GatewaySkills;
  }
}

/**
 * Skills: each declared workflow a tool `skill:<name>`, registered at start after the local
 * sources, so their annotations start from the tools known then (they follow later catalog
 * changes). A skill's steps run in the scope of its caller, by the rule the surfaces use. A reload
 * keeps unchanged skills' tools and compiles changed ones anew; sessions opened before the first
 * skill was configured run skills through `run_tool` only.
 */
export const skills: FeatureFactory = (config, parts) => {
  const holder: { current: SkillCatalog | undefined } = { current: undefined };
  parts.provide('skills', holder);
  // One follower of each downstream server's skills, made when first asked for (servers come and go on reloads).
  const followers = new WeakMap<object, DownstreamSkills>();
  const skillsLog = parts.log.child({ component: 'skills-extension' });
  const servers = (): SkillServer[] => {
    const configured = parts.config().servers;
    return parts.need('remote').servers.map((server) => {
      let follower = followers.get(server);
      if (!follower) {
        follower = new DownstreamSkills(server, skillsLog);
        followers.set(server, follower);
      }
      return {
        name: server.name,
        namespace: server.namespace,
        sourceId: server.sourceId,
        prefix: configured[server.name]?.prefix !== false,
        skills: follower,
      };
    });
  };
  parts.provide(
    'skillsExtension',
    new GatewaySkills({ servers, configured: () => holder.current, log: skillsLog }),
  );
  const load = (definitions: ApertureConfig['skills']) => {
    if (holder.current) {
      holder.current.replace(definitions);
      return;
    }
    if (definitions.length === 0) return;
    const made = new SkillCatalog({
      catalog: parts.need('catalog'),
      skills: definitions,
      scopeFor: (caller) =>
        parts.need('toolsets').resolve({
          caller,
          ...(caller.toolset !== undefined ? { toolset: caller.toolset } : {}),
        }),
      validator: parts.gateway.validator,
      log: parts.log.child({ component: 'skills' }),
    });
    made.attach();
    holder.current = made;
  };
  return {
    name: 'skills',
    start: () => load(config.skills),
    reload: {
      skills: (next) => {
        load(next.config.skills);
        return undefined;
      },
    },
    close: () => holder.current?.close(),
  };
};
