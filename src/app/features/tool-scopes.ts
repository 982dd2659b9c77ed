import { type ScopeDeps, ToolScope } from '../../composition/tool-scope.js';
import { ToolsetRegistry } from '../../composition/toolsets/toolset-registry.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** The whole catalog: the scope of unconfined callers (stdio, CLI, auth off). */
    scope: ToolScope;
    /** The configured toolsets and the scope of every caller (`resolve`). */
    toolsets: ToolsetRegistry;
    /** What every scope shares; search's reload points it at the new stack. */
    scopeDeps: ScopeDeps;
  }
}

/**
 * The run pipeline and the scopes over it (core, always on). The pipeline's middlewares are the
 * slots filled by the features listed before this one; one listed after it may not fill a slot.
 * A reload redefines `toolsets` in place, so the scopes of open sessions follow.
 */
export const toolScopes: FeatureFactory = (config, parts) => {
  const { calls, validator, maskSecrets, log } = parts.gateway;
  const catalog = parts.need('catalog');
  const pipeline = new RunPipeline({
    catalog,
    calls,
    middlewares: parts.need('middlewareChain')(),
    validator,
    defaultTimeoutMs: config.execution.timeoutMs,
    maxResultBytes: config.execution.maxResultBytes,
    maskText: maskSecrets,
    // A confined caller runs only members of its toolsets, whatever path reached the pipeline.
    authorizer: { authorize: (tool, caller) => toolsets.authorize(tool, caller) },
    policy: parts.need('policyEnforcement'),
    log: log.child({ component: 'pipeline' }),
  });
  const deps: ScopeDeps = parts.provide('scopeDeps', {
    catalog,
    search: parts.need('search').stack.search,
    pipeline,
    maxChainSteps: config.execution.maxChainSteps,
    descriptionChars: config.search.descriptionChars,
    explain: config.search.explain,
  });
  const scope = parts.provide('scope', new ToolScope(deps));
  const toolsets = parts.provide(
    'toolsets',
    new ToolsetRegistry(deps, config.toolsets, { base: scope, visibility: parts.need('policyEnforcement') }),
  );
  return {
    name: 'tool-scopes',
    reload: {
      toolsets: (next) => {
        toolsets.replace(next.config.toolsets);
        // No tool changed, but what each toolset's sessions see did: they are told.
        catalog.touch();
        return undefined;
      },
    },
  };
};
