import type { Tool } from '../../foundation/model/tool.js';

/**
 * Whether results of `tool` may be served from the cache. An override's `cache: true|false`
 * (carried as `metadata.extra.cache`) decides when present; otherwise a tool is cached when it
 * declares itself read-only or idempotent — calling such a tool again has no further effect, so
 * answering from a recent call instead is what a second call would have done, give or take what
 * changed in the world within the time to live. Every other tool may change the world on each
 * call and is never cached.
 */
export function isCacheable(tool: Pick<Tool, 'annotations' | 'metadata'>): boolean {
  const override = tool.metadata.extra?.cache;
  if (typeof override === 'boolean') return override;
  return tool.annotations.readOnlyHint === true || tool.annotations.idempotentHint === true;
}
