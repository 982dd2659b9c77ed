import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isValidSecretName, type SecretProvider } from './secret-provider.js';

/** Options of {@link DirectorySecretProvider}. */
export interface DirectorySecretProviderOptions {
  /** The directory holding one file per secret, e.g. `/run/secrets`; relative to the process cwd. */
  path: string;
}

/**
 * Secrets as files in one directory, the layout of Docker secrets (`/run/secrets/NAME`) and of
 * Kubernetes secret volumes: `${secret:DB_PASS}` is the content of `<path>/DB_PASS`, with one
 * trailing newline removed (what `echo value > file` leaves behind).
 */
export class DirectorySecretProvider implements SecretProvider {
  readonly name: string;
  readonly #dir: string;

  constructor(options: DirectorySecretProviderOptions) {
    this.#dir = resolve(options.path);
    this.name = `directory:${this.#dir}`;
  }

  async get(name: string): Promise<string | undefined> {
    // The name becomes a path: anything but a plain file name (`../x`, `a/b`, `.`) could leave the
    // directory, and no file of this directory can be called that anyway.
    if (!isValidSecretName(name)) return undefined;
    let text: string;
    try {
      // Symlinks are followed on purpose: Kubernetes mounts each key as a link into `..data/`.
      text = await readFile(join(this.#dir, name), 'utf8');
    } catch {
      // Missing, a directory, or not readable by this user: this provider does not have it.
      return undefined;
    }
    if (text.endsWith('\r\n')) return text.slice(0, -2);
    if (text.endsWith('\n')) return text.slice(0, -1);
    return text;
  }
}
