import { homedir } from 'node:os';
import type { ApertureConfig } from '../config/config-schema.js';
import { credentialPaths } from '../foundation/sandbox/credential-paths.js';
import { detectSandboxEngine } from '../foundation/sandbox/sandbox-engine.js';

/**
 * The OS sandbox of code mode's `process` runtime under `sandbox.default`: bubblewrap with the
 * credential paths unreadable, or none — with `warn` told why when the engine is missing, and an
 * error when the sandbox is `required`.
 *
 * @throws Error when `sandbox.default` is `required` and no engine exists here.
 */
export function codeModeOsSandbox(
  settings: ApertureConfig['sandbox'],
  warn: (reason: string) => void,
): { bwrap: string; deny: string[] } | undefined {
  if (settings.default === 'off') return undefined;
  const engine = detectSandboxEngine();
  if (!engine.available) {
    if (settings.default === 'required') {
      throw new Error(
        `sandbox.default is "required" but code mode's process runtime cannot be sandboxed: ${engine.reason}`,
      );
    }
    warn(engine.reason);
    return undefined;
  }
  return { bwrap: engine.path, deny: credentialPaths(homedir()) };
}
