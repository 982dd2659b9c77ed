import type { Tool } from '../../foundation/model/tool.js';
import { type CallerContext, callerKey } from '../../foundation/ports/tool-backend.js';
import type { CelInput } from './cel-rule.js';
import type { PolicyCall } from './policy-types.js';

/**
 * What a rule sees of the caller: `identity`, `key` (the method-qualified key, `apikey:alice`),
 * `method` (`api_key`, `jwt`, `introspection`, or `none`), `claims` (a token's verified claims;
 * empty otherwise), `toolsets` (the grants; empty when unconfined), `confined`, `admin`, `roles`
 * (the `auth.roles` held; empty when none), and `toolset` (the one the request narrowed to, `""`
 * when none). Every key is always present, so a rule never fails on a missing key of the caller.
 */
export function callerInput(caller: CallerContext): Record<string, unknown> {
  return {
    identity: caller.identity,
    key: callerKey(caller),
    method: caller.authMethod ?? 'none',
    claims: caller.claims ?? {},
    toolsets: caller.toolsets ?? [],
    confined: caller.toolsets !== undefined,
    admin: caller.admin === true,
    roles: caller.roles ?? [],
    toolset: caller.toolset ?? '',
  };
}

const toolInputs = new WeakMap<Tool, Record<string, unknown>>();

/**
 * What a rule sees of the tool: `id`, `namespace`, `name`, `annotations` (as declared: test an
 * optional hint with `has(tool.annotations.readOnlyHint)`), `tags` and `metadata`. Made once per
 * catalog tool (tools are immutable; a changed tool is a new object).
 */
export function toolInput(tool: Tool): Record<string, unknown> {
  let input = toolInputs.get(tool);
  if (!input) {
    input = {
      id: tool.id,
      namespace: tool.namespace,
      name: tool.name,
      annotations: tool.annotations,
      tags: tool.tags,
      metadata: tool.metadata,
    };
    toolInputs.set(tool, input);
  }
  return input;
}

/** The CEL variables of one call. */
export function celInput(call: PolicyCall, caller = callerInput(call.caller)): CelInput {
  return {
    caller,
    tool: toolInput(call.tool),
    args: call.args,
    surface: call.surface,
    now: call.now ?? new Date(),
  };
}
