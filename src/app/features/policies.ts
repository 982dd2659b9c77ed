import { loadPolicyEngine } from '../../execution/policy/load-policy-engine.js';
import { PolicyEnforcement } from '../../execution/policy/policy-enforcement.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /**
     * The policy rules in force (`policies`), read by the run pipeline's authorize stage and the
     * scopes' visibility. A reload swaps its `engine`. The approvals feature sets its `gate` (who
     * answers `effect: approve`) and `trail` (where denials and approval requests are recorded)
     * when it starts; without a gate an `approve` decision is refused as `forbidden`.
     */
    policyEnforcement: PolicyEnforcement;
  }
}

/**
 * Policy rules (`policies`: CEL rules, a Cedar file, the `cautious` preset): enforced in the run
 * pipeline's authorize stage on every surface, and hiding what they deny for every argument from
 * the caller's lists. Listed before `toolScopes`, which builds the pipeline over it. A reload
 * compiles the new rules (a bad one is refused at load, the old ones stay) and tells sessions
 * their lists may have changed.
 */
export const policies: FeatureFactory = async (config, parts) => {
  const enforcement = parts.provide(
    'policyEnforcement',
    new PolicyEnforcement({
      engine: await loadPolicyEngine(config.policies, parts.gateway.loaded().baseDir),
      log: parts.log.child({ component: 'policy' }),
    }),
  );
  const catalog = parts.need('catalog');
  return {
    name: 'policies',
    reload: {
      policies: async (next) => {
        enforcement.engine = await loadPolicyEngine(next.config.policies, next.baseDir);
        // No tool changed, but what each caller may see did: sessions are told to list again.
        catalog.touch();
        return undefined;
      },
    },
  };
};
