import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What {@link invokedAs} reads: the process's script path, environment and directory. */
export interface Invocation {
  /** `process.argv[1]`: the script node was started with (a bin link, or `dist/cli/main.js`). */
  script: string | undefined;
  /** The environment: npm marks `npx`/`npm exec` with `npm_command=exec`, `npm start` with `start`. */
  env: Record<string, string | undefined>;
  /** The working directory the user is in. */
  cwd: string;
  /** This package's root (the clone, or the installed package's folder). */
  packageRoot: string;
}

/** The root of this package: every module of dist/ sits two levels below it (dist/cli/…). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What this process actually is: argv, environment and folders, for {@link invokedAs}. */
export function currentInvocation(): Invocation {
  return { script: process.argv[1], env: process.env, cwd: process.cwd(), packageRoot: PACKAGE_ROOT };
}

function inside(dir: string, root: string): boolean {
  const relative = path.relative(root, dir);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The command a message should tell the user to type next, the way they started this one.
 * Why not always `npx aperture`: outside the clone, `npx aperture` fetches an unrelated npm
 * package of that name; and an installed `aperture` needs no `npx`.
 *
 * - `npx aperture …` / `npm exec` (npm sets `npm_command=exec`): `npx aperture`.
 * - `npm start` and other package scripts: `npx aperture` in the clone, else `node <its main.js>`.
 * - An installed bin (the script's name is not a `.js` file: `aperture` on PATH, a shim): `aperture`.
 * - `node dist/cli/main.js …`: that same `node …` command, relative when under the working directory.
 */
export function invokedAs(invocation: Invocation = currentInvocation()): string {
  const { script, env, cwd, packageRoot } = invocation;
  const npmCommand = env.npm_command;
  if (npmCommand === 'exec') return 'npx aperture';
  if (npmCommand !== undefined && npmCommand !== '' && inside(cwd, packageRoot)) return 'npx aperture';
  if (script === undefined || !/\.[cm]?[jt]s$/.test(script)) return 'aperture';
  const relative = path.relative(cwd, script);
  const shown = inside(script, cwd) ? relative.split(path.sep).join('/') : script;
  return `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`;
}
