/**
 * The port behind `${secret:NAME}` references in the config. Asynchronous so that providers which
 * ask a network service (a vault, a cloud secret manager) fit behind it as well as files and the
 * environment do.
 */
export interface SecretProvider {
  /** Names the provider in messages, e.g. `env`, `directory:/run/secrets`. */
  readonly name: string;
  /**
   * The secret's value, exactly as stored; `undefined` when this provider does not have it.
   * Rejects only when the provider cannot answer at all (a vault that is down), never for a
   * missing secret, so a chain of providers can tell "not here" from "could not ask".
   */
  get(name: string): Promise<string | undefined>;
}

/** What a secret name may look like, for messages. */
export const SECRET_NAME_RULE = 'letters, digits, "_", "." or "-", not starting with "." or "-"';

// A file name in a flat directory and a portable env variable suffix at once: no separators, no
// leading dot (so neither `.` nor `..`), bounded like a file name.
const SECRET_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/;

/** Whether `name` is an acceptable secret name ({@link SECRET_NAME_RULE}). */
export function isValidSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}
