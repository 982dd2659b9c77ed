import path from 'node:path';

/**
 * Credential locations under the user's home that no sandboxed process may read, whatever it is
 * granted otherwise: keys, cloud and cluster credentials, registry tokens.
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.config/gcloud',
  '.azure',
  '.kube',
  '.docker',
  '.netrc',
  '.npmrc',
  '.git-credentials',
  '.config/gh',
  '.gnupg',
  '.pgpass',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.config/op',
  '.password-store',
];

/** The credential paths under `home`. */
export function credentialPaths(home: string): string[] {
  return CREDENTIAL_PATHS.map((relative) => path.join(home, relative));
}
