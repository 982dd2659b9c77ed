import { GatewayError } from '../../foundation/model/gateway-error.js';

/**
 * A `validation_input` error for a constraint JSON Schema cannot express. `path` is the JSON
 * Pointer of the offending argument, `reason` a sentence a model can act on.
 */
export function inputError(path: string, reason: string): GatewayError {
  return new GatewayError('validation_input', `Invalid argument ${path}: ${reason}`, {
    details: { path, reason },
  });
}
