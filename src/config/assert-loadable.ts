import path from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { configFormatOf } from './config-syntax.js';
import { parseConfigText } from './parse-config.js';

/**
 * Checks that `text` is a config the gateway would load, with every `${secret:…}` taken as
 * defined (the user stores the values after the add). Throws `config_invalid`: nothing written.
 */
export function assertLoadable(text: string, file: string): void {
  const anySecret = new (class extends Map<string, string> {
    override get(): string {
      return 'placeholder-value';
    }
    override has(): boolean {
      return true;
    }
  })();
  try {
    parseConfigText(text, configFormatOf(file), {
      source: path.basename(file),
      secrets: anySecret,
      // Every referenced variable defined: a variable set only where the gateway runs is not a fault here.
      env: {
        ...Object.fromEntries(
          [...text.matchAll(/\$\{env:([^}:]+)/g)].map(([, name = '']) => [name, 'placeholder-value']),
        ),
        ...process.env,
      },
    });
  } catch (error) {
    if (error instanceof GatewayError) {
      throw new GatewayError(
        'config_invalid',
        `the config would not load after this change: ${error.message} (nothing was written)`,
      );
    }
    throw error;
  }
}
