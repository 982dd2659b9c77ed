import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Whether an optional npm package (one a plain `npm ci` leaves out, such as
 * `@huggingface/transformers`) is installed in this checkout. Tests that need it skip, with a
 * name that says so, when it is not; `.ci/run` installs it, so CI runs them.
 */
export function isPackageInstalled(name: string): boolean {
  return existsSync(path.join(ROOT, 'node_modules', ...name.split('/'), 'package.json'));
}

/** The suffix of a skipped test's name: ` (skipped: PACKAGE is not installed)`, or nothing. */
export function unlessInstalled(name: string): string {
  return isPackageInstalled(name) ? '' : ` (skipped: ${name} is not installed; see .ci/run)`;
}
