import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { GatewayError } from '../../foundation/model/gateway-error.js';

/*
 * A server entry that starts this same gateway makes the gateway start itself, which starts itself
 * again, without end (measured: 22 processes and +900 MB in 25 s). Such an entry is usually a
 * client's own `aperture` entry pasted or imported along with the rest. It is refused at config
 * load; the `APERTURE_PARENT` marker (`self-launch-marker.ts`) catches what slips past (a wrapper
 * script).
 */

/** The npm package of this gateway. */
export const PACKAGE_NAME = 'aperture-gateway';
/** The command the package installs. */
const BIN_NAME = 'aperture';
/** Package names `npx` / `npm exec` would run this gateway from. */
const SELF_PACKAGES: ReadonlySet<string> = new Set([PACKAGE_NAME, BIN_NAME]);
/** Shells whose `-c SCRIPT` is looked into. */
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash']);
/** Runtimes whose first argument is a script file. */
const RUNTIMES: ReadonlySet<string> = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx']);
/** Prefix commands that run the rest of the line: `env A=1 aperture`, `exec aperture`. */
const PREFIXES: ReadonlySet<string> = new Set(['env', 'exec', 'command', 'nohup', 'time', 'nice']);
/** The CLI's entry point inside the package: built, and run from source (`tsx src/cli/main.ts`). */
const CLI_FILES: ReadonlySet<string> = new Set(['dist/cli/main.js', 'src/cli/main.ts']);
/** How deep wrappers are followed (`sh -c "npx -c 'aperture'"`). */
const MAX_DEPTH = 4;

/** A command's name without folder and Windows suffix, lower case: `/usr/bin/Aperture.cmd` → `aperture`. */
function commandName(command: string): string {
  return path
    .basename(command.replaceAll('\\', '/'))
    .toLowerCase()
    .replace(/\.(cmd|exe|bat|ps1|js|mjs|cjs)$/, '');
}

/** `aperture-gateway@1.2.0` → `aperture-gateway`; `@scope/pkg@^1` → `@scope/pkg`. */
export function packageNameOf(spec: string): string {
  const at = spec.indexOf('@', 1);
  return (at === -1 ? spec : spec.slice(0, at)).toLowerCase();
}

/**
 * Why running `command args` would start this gateway, or undefined when it would not (as far as
 * can be told from the command line: a wrapper script of one's own is not opened).
 */
export function selfLaunchReason(command: string, args: readonly string[], depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const name = commandName(command);
  if (name === BIN_NAME) return `its command "${command}" is the Aperture CLI`;
  if (PREFIXES.has(name)) return prefixed(args, depth);
  if (RUNTIMES.has(name)) {
    const script = args.find((arg) => !arg.startsWith('-'));
    if (script !== undefined && isApertureScript(script)) return `it runs the Aperture CLI (${script})`;
    return undefined;
  }
  if (name === 'npx' || name === 'bunx') return npxReason(args, depth);
  if ((name === 'npm' || name === 'pnpm' || name === 'yarn') && args.length > 0) {
    const [sub, ...rest] = args;
    if (sub === 'exec' || sub === 'x' || sub === 'dlx') return npxReason(rest, depth);
    return undefined;
  }
  if (SHELLS.has(name)) {
    const flag = args.findIndex((arg) => /^-[a-z]*c[a-z]*$/i.test(arg));
    const script = flag === -1 ? undefined : args[flag + 1];
    return script === undefined ? undefined : scriptReason(script, depth);
  }
  if (name === 'cmd') {
    const flag = args.findIndex((arg) => /^\/[ck]$/i.test(arg));
    return flag === -1 ? undefined : scriptReason(args.slice(flag + 1).join(' '), depth);
  }
  if (name === 'powershell' || name === 'pwsh') {
    const flag = args.findIndex((arg) => /^-(c|command)$/i.test(arg));
    return flag === -1 ? undefined : scriptReason(args.slice(flag + 1).join(' '), depth);
  }
  return undefined;
}

/** `env A=1 aperture serve`, `exec aperture`: the command after the prefix and its assignments. */
function prefixed(args: readonly string[], depth: number): string | undefined {
  const rest = args.filter((arg) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg));
  const start = rest.findIndex((arg) => !arg.startsWith('-'));
  if (start === -1) return undefined;
  return selfLaunchReason(rest[start] as string, rest.slice(start + 1), depth + 1);
}

/** Options of `npx` / `npm exec` that take a value. */
const NPX_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-p', '--package', '-c', '--call', '--cache']);

/** `npx [-y] [-p PKG]… [-c SCRIPT] PKG[@ver] …`: the packages it runs, or its script. */
function npxReason(args: readonly string[], depth: number): string | undefined {
  const packages: string[] = [];
  let call: string | undefined;
  let first: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      first = args[i + 1];
      break;
    }
    const [option, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg, undefined];
    if (NPX_VALUE_OPTIONS.has(option as string)) {
      const value = inline ?? args[++i];
      if (value === undefined) break;
      if (option === '-p' || option === '--package') packages.push(value);
      if (option === '-c' || option === '--call') call = value;
      continue;
    }
    if (arg.startsWith('-')) continue;
    first = arg;
    break;
  }
  for (const spec of [...packages, ...(first === undefined ? [] : [first])]) {
    if (SELF_PACKAGES.has(packageNameOf(spec))) return `it runs the package "${spec}" through npx / npm exec`;
    if (first === spec && isApertureScript(spec)) return `it runs the Aperture CLI (${spec})`;
  }
  return call === undefined ? undefined : scriptReason(call, depth);
}

/** A shell script: each command of it (split at `;`, `&&`, `||`, `|`, `&`, newlines) is checked. */
function scriptReason(script: string, depth: number): string | undefined {
  for (const part of script.split(/&&|\|\||[;|&\n]/)) {
    const words = shellWords(part);
    const start = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    if (start === -1) continue;
    const reason = selfLaunchReason(words[start] as string, words.slice(start + 1), depth + 1);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Splits a command line into words, honouring single and double quotes (enough for this check). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return words;
}

/**
 * Whether a script path is this package's CLI: the file is `dist/cli/main.js` (or `src/cli/main.ts`)
 * of a package named `aperture-gateway` (its other files, test servers among them, are not), or,
 * for a path that does not exist here, it looks like `…/aperture…/dist/cli/main.js`.
 */
function isApertureScript(script: string): boolean {
  let file: string;
  try {
    file = realpathSync(path.resolve(script));
  } catch {
    return /aperture[^/\\]*[/\\](dist|src)[/\\]cli[/\\]main\.[cm]?[jt]s$/i.test(script);
  }
  let dir = path.dirname(file);
  for (let up = 0; up < 4; up++) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      const inside = path.relative(dir, file).replaceAll('\\', '/');
      return manifest.name === PACKAGE_NAME && CLI_FILES.has(inside);
    } catch {
      // No package.json here (or not JSON): look one folder up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return false;
}

/** Set on every stdio server the gateway starts: the gateway's pid. */
export const PARENT_MARKER = 'APERTURE_PARENT';
/** Set with it: the config files of the gateways above (JSON array), so a loop through any wrapper is seen. */
export const CONFIG_CHAIN_MARKER = 'APERTURE_CONFIG_CHAIN';

/** The config files of this gateway and those above it, once `enterConfigChain` ran. */
let configChain: readonly string[] = [];

/** A config file as the chain names it: its real path (a link and its target are one config). */
function configIdentity(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function chainOf(env: NodeJS.ProcessEnv): string[] {
  try {
    const parsed: unknown = JSON.parse(env[CONFIG_CHAIN_MARKER] ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The second line of defence against a gateway serving itself, for what the config check cannot
 * see (a wrapper script): called before a gateway starts its servers. A gateway started by a
 * gateway (the marker is set) with a config already in the chain above it is that gateway again:
 * refused (`config_invalid`), so the process exits instead of starting itself once more.
 * Otherwise the chain, this config added, is what the servers started from here inherit.
 */
export function enterConfigChain(configFile: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  const above = env[PARENT_MARKER] === undefined ? [] : chainOf(env);
  const own = configFile === undefined ? undefined : configIdentity(configFile);
  if (own !== undefined && above.includes(own)) {
    throw new GatewayError(
      'config_invalid',
      `this gateway was started by the Aperture gateway (pid ${env[PARENT_MARKER]}) as one of its own servers, with the same config ${own}: refusing to start, it would start itself again without end; remove the server entry of ${own} that runs aperture`,
      { details: { path: 'servers', file: own } },
    );
  }
  configChain = own === undefined ? above : [...above, own];
}

/** The markers a stdio server is started with (`PARENT_MARKER`, `CONFIG_CHAIN_MARKER`). */
export function selfLaunchMarkers(): Record<string, string> {
  return { [PARENT_MARKER]: String(process.pid), [CONFIG_CHAIN_MARKER]: JSON.stringify(configChain) };
}
