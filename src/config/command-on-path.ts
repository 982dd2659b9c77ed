import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** What the check needs of a stdio server entry. */
interface StdioEntry {
  command?: string | undefined;
  cwd?: string | undefined;
  enabled?: boolean | undefined;
}

/**
 * Whether `command` can be started: a path (it has a slash) must be an executable file, resolved
 * against `cwd`; a bare name must be an executable file in one of `PATH`'s directories (with
 * `PATHEXT`'s endings on Windows).
 */
export function commandExists(command: string, env: NodeJS.ProcessEnv, cwd: string): boolean {
  const windows = process.platform === 'win32';
  const endings = windows ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  const candidates = /[\\/]/.test(command)
    ? [path.resolve(cwd, command)]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => path.join(dir, command));
  return candidates.some((candidate) => endings.some((ending) => isExecutable(candidate + ending)));
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * One warning per enabled stdio server whose command is not found here (not on `PATH`). A
 * relative `command` is looked for as the gateway starts it: in the entry's `cwd` (resolved
 * against `baseDir`, the config's folder), else in `cwd`. A warning, not an error: the gateway
 * may run elsewhere, with another `PATH` (a service manager, a container). At run time such a
 * server fails at once with the same reason, and is not retried.
 */
export function missingCommandWarnings(
  servers: Readonly<Record<string, StdioEntry>>,
  env: NodeJS.ProcessEnv,
  cwd: string,
  baseDir = cwd,
): string[] {
  const warnings: string[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (entry.command === undefined || entry.enabled === false) continue;
    // As the gateway starts it: in the entry's `cwd` (relative to the config's folder), else here.
    const dir = entry.cwd === undefined ? cwd : path.resolve(baseDir, entry.cwd);
    if (commandExists(entry.command, env, dir)) continue;
    warnings.push(
      `servers.${name}.command: "${entry.command}" is not found on PATH here; the server will fail to start unless the gateway's PATH at run time has it`,
    );
  }
  return warnings;
}
