import { parseConfigText } from '../config/load-config.js';
import { toGatewayError } from '../foundation/model/gateway-error.js';

/** What checking a pasted config gives: valid with its warnings, or the error naming the bad keys. */
export type ConfigCheck =
  | { valid: true; warnings: string[]; notices: string[] }
  | { valid: false; error: { code: string; message: string; issues?: unknown } };

/**
 * `aperture config validate` on text rather than a file (the console's Config page): syntax,
 * interpolation and the schema, with the same messages. `${env:…}` reads this process's
 * environment, as the gateway's own config did; every `${secret:…}` counts as defined (the
 * providers are not asked for a document that is only being checked). Tool modules are not
 * loaded: their paths would be relative to a file that does not exist.
 */
export function checkConfigText(text: string, format: 'yaml' | 'json' = 'yaml'): ConfigCheck {
  const anySecret = {
    get: () => 'secret-placeholder',
    has: () => true,
  } as unknown as ReadonlyMap<string, string>;
  try {
    const parsed = parseConfigText(text, format, { source: 'pasted config', secrets: anySecret });
    return { valid: true, warnings: parsed.warnings, notices: parsed.notices ?? [] };
  } catch (error) {
    const failure = toGatewayError(error);
    const issues = failure.details?.issues;
    return {
      valid: false,
      error: { code: failure.code, message: failure.message, ...(issues === undefined ? {} : { issues }) },
    };
  }
}
