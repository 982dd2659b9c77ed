import { GatewayError } from '../foundation/gateway-error.js';
import type { ApertureConfig } from './config-schema.js';

/**
 * Config sections the schema already knows (DESIGN.md §4) but this build does not act on yet.
 * A non-empty one is refused rather than silently ignored: a user who lists servers or API keys
 * must not get a gateway that quietly has neither.
 */
const NOT_YET: readonly (keyof ApertureConfig)[] = ['state'];

/** Throws `config_invalid` naming every set section this build cannot honour yet. */
export function assertSupportedSections(config: ApertureConfig, label: string): void {
  const used = NOT_YET.filter((key) => {
    const value = config[key] as unknown;
    if (Array.isArray(value)) return value.length > 0;
    return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
  });
  if (used.length === 0) return;
  throw new GatewayError(
    'config_invalid',
    `${label}: ${used.join(', ')}: not supported by this version of Aperture yet; remove ${used.length === 1 ? 'it' : 'them'} to start`,
    { details: { path: used[0], unsupported: used } },
  );
}
