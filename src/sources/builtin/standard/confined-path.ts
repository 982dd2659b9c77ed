import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import { inputError } from '../input-error.js';

/**
 * A directory every standard file tool is confined to (`tools.standard.fs.root`). Paths are
 * resolved against it and checked twice: lexically (`..` cannot climb out), then on disk with
 * `realpath` (a symlink inside the root cannot lead out of it) — for a file being created, the
 * parent directory is resolved, and the name itself must not be a dangling symlink.
 */
export class ConfinedRoot {
  private real: Promise<string> | undefined;

  constructor(readonly root: string) {}

  /** The root's own real path (resolved once: the root itself may be a symlink). */
  private realRoot(): Promise<string> {
    this.real ??= realpath(this.root).catch((error: unknown) => {
      this.real = undefined;
      throw new GatewayError('backend_unavailable', `The file tools' root "${this.root}" is not usable`, {
        cause: error,
      });
    });
    return this.real;
  }

  /** The real path of an existing entry at `requested`; refuses escapes and missing entries. */
  async existing(requested: string, pointer = '/path'): Promise<string> {
    const root = await this.realRoot();
    const lexical = this.lexical(root, requested, pointer);
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw inputError(pointer, `no file or directory "${requested}" under the root`);
      }
      throw error;
    }
    assertInside(root, real, requested);
    return real;
  }

  /**
   * Where to write `requested`: its real path when it exists, else the real parent joined with
   * the name (the parent must exist; the name must not be a symlink, dangling or not).
   */
  async target(requested: string, pointer = '/path'): Promise<{ path: string; exists: boolean }> {
    const root = await this.realRoot();
    const lexical = this.lexical(root, requested, pointer);
    const entry = await lstat(lexical).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (entry) {
      const real = await realpath(lexical).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw forbidden(requested, 'is a dangling symbolic link');
        throw error;
      });
      assertInside(root, real, requested);
      return { path: real, exists: true };
    }
    const parent = await this.existing(path.dirname(lexical), pointer);
    return { path: path.join(parent, path.basename(lexical)), exists: false };
  }

  /** `requested` resolved against the root, refused when it lexically leaves it. */
  private lexical(root: string, requested: string, pointer: string): string {
    if (requested.includes('\0')) throw inputError(pointer, 'must not contain NUL characters');
    const resolved = path.resolve(root, requested);
    assertInside(root, resolved, requested);
    return resolved;
  }
}

function assertInside(root: string, candidate: string, requested: string): void {
  const relative = path.relative(root, candidate);
  const climbs = relative === '..' || relative.startsWith(`..${path.sep}`);
  if (relative === '' || (!climbs && !path.isAbsolute(relative))) return;
  throw forbidden(requested, 'is outside the root the file tools are confined to');
}

function forbidden(requested: string, why: string): GatewayError {
  return new GatewayError('forbidden', `The path "${requested}" ${why}`, { details: { path: requested } });
}
