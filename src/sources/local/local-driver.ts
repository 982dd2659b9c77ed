import type { SourceDriver } from '../source-driver.js';

/**
 * The user's own tool modules (`tools.modules`), one in-process source per file (`module:<file>`):
 * code the user wrote and reviews as such, so the trust gate does not check them. The gateway
 * loads them itself (`loadToolModules`), before it serves.
 */
export const LOCAL_DRIVER: SourceDriver<'local'> = {
  kind: 'local',
  trustGated: false,
  section: undefined,
};

/** The catalog source id of the tool module `file`. */
export function moduleSourceId(file: string): string {
  return `module:${file}`;
}
