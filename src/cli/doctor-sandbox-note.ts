import type { SandboxSummary } from '../foundation/sandbox/sandbox-profile.js';

/**
 * `doctor`'s note on how a stdio server is sandboxed: the engine, its network, and every path it
 * may write (including the directories named in its arguments, which count as granted).
 */
export function sandboxNote(sandbox: SandboxSummary): string {
  if (sandbox.engine === 'none') return `not sandboxed: ${sandbox.reason ?? 'no engine'}`;
  const network =
    typeof sandbox.network === 'string' ? sandbox.network : `allow ${sandbox.network.join(', ')}`;
  const limits = Object.entries(sandbox.limits ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${value}`);
  return `sandbox: ${sandbox.engine}, network ${network}, writable ${sandbox.writable.join(', ')}${limits.length > 0 ? `, limits ${limits.join(', ')}` : ''}`;
}
