// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the messages and editor variables name ${…} forms on purpose.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { normaliseNamespace } from '../foundation/schema/config-values.js';
import { isRecord } from '../foundation/util/is-record.js';
import { formatConfigPath } from './interpolate.js';

/*
 * What lets an `mcpServers` block from another MCP client (Claude Desktop, Claude Code, Cursor,
 * Cline / Roo, Windsurf, VS Code) paste in unchanged: the keys the schema maps are in
 * config-schema.ts; here are the parts that are not schema: server keys that are not namespaces,
 * `envFile`, and the info lines for what is accepted but ignored.
 */

const SERVER_SECTIONS = ['servers', 'mcpServers'] as const;

/** The server entries of a raw config document, with their section. */
function serverEntries(raw: unknown): { section: string; key: string; entry: Record<string, unknown> }[] {
  if (!isRecord(raw)) return [];
  return SERVER_SECTIONS.flatMap((section) => {
    const record = raw[section];
    if (!isRecord(record)) return [];
    return Object.entries(record)
      .filter((pair): pair is [string, Record<string, unknown>] => isRecord(pair[1]))
      .map(([key, entry]) => ({ section, key, entry }));
  });
}

/**
 * Info lines for a valid config about what came from other clients' formats: server keys
 * normalised into namespaces, and keys accepted but ignored (`autoApprove`, `alwaysAllow`,
 * VS Code's `inputs`). One line per kind of finding, naming every server it concerns.
 */
export function clientCompatNotices(raw: unknown): string[] {
  const notices: string[] = [];
  for (const { section, key, entry } of serverEntries(raw)) {
    if (typeof entry.namespace === 'string') continue;
    const namespace = normaliseNamespace(key);
    if (namespace !== undefined && namespace !== key) {
      notices.push(
        `${formatConfigPath([section, key])}: the key is not a valid namespace; its tools use namespace "${namespace}"`,
      );
    }
  }
  for (const ignored of ['autoApprove', 'alwaysAllow']) {
    const where = serverEntries(raw)
      .filter(({ entry }) => entry[ignored] !== undefined)
      .map(({ section, key }) => formatConfigPath([section, key]));
    if (where.length > 0) {
      notices.push(
        `"${ignored}" is ignored (${where.join(', ')}): Aperture runs tools without asking; limit them with toolsets or overrides (hidden: true)`,
      );
    }
  }
  if (isRecord(raw) && raw.inputs !== undefined) {
    notices.push(
      '"inputs" (VS Code prompts) is ignored: Aperture cannot prompt; write ${env:NAME} or ${secret:NAME} where the file has ${input:…}',
    );
  }
  return notices;
}

// `${NAME}` / `${NAME:-x}` (Claude Code's .mcp.json expands them) and `${input:id}` (VS Code).
const FOREIGN_REFERENCE = /\$\{(input:[^}]*|[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?)\}/;

/**
 * Warnings for values that other clients would have expanded and Aperture passes on literally:
 * `${NAME}` (Claude Code), `${input:id}` (VS Code) in a server's `env`, `headers` or `url`. There
 * a literal `${…}` is almost certainly a mistake; Aperture's own form is `${env:NAME}`.
 */
export function clientCompatWarnings(raw: unknown): string[] {
  const warnings: string[] = [];
  for (const { section, key, entry } of serverEntries(raw)) {
    const values: [string[], unknown][] = [
      [['url'], entry.url],
      [['serverUrl'], entry.serverUrl],
      ...(['env', 'headers'] as const).flatMap((field) => {
        const map = entry[field];
        return isRecord(map)
          ? Object.entries(map).map(([name, value]): [string[], unknown] => [[field, name], value])
          : [];
      }),
    ];
    for (const [path, value] of values) {
      const match = typeof value === 'string' ? FOREIGN_REFERENCE.exec(value) : null;
      if (!match) continue;
      const inner = match[1] ?? '';
      const hint = inner.startsWith('input:') ? '${env:NAME} or ${secret:NAME}' : `\${env:${inner}}`;
      warnings.push(
        `${formatConfigPath([section, key, ...path])}: "${match[0]}" is passed on literally; Aperture reads variables as ${hint}`,
      );
    }
  }
  return warnings;
}

// `${NAME}` / `${NAME:-default}` as Claude Code writes them; `$${…}` is Aperture's escape, left alone.
const CLIENT_VARIABLE = /(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Context of {@link expandClientVariables}. */
export interface ClientVariableContext {
  /** `${workspaceFolder}` (Cursor, VS Code): the config file's directory. */
  baseDir: string;
  /** Where `${NAME}` is looked up; `HOME` (else the OS's) is `${userHome}`. */
  env: Record<string, string | undefined>;
}

/**
 * Reads the variables other clients expand in a server's `env`, `headers` and `url`, as they do:
 * `${userHome}` is the home directory and `${workspaceFolder}` the config file's folder (Cursor),
 * and `${NAME}` / `${NAME:-default}` (Claude Code) become Aperture's own `${env:NAME}` /
 * `${env:NAME:-default}` — so they are resolved, masked and reported like every other reference.
 * A `${NAME}` with no default whose variable is not set stays literal, and is warned about
 * (`clientCompatWarnings`), as a value no client could have meant. `${env:…}`, `${secret:…}`
 * and escapes (`$${…}`) are left as they are. Returns a copy; the document is not changed.
 */
export function expandClientVariables(raw: unknown, context: ClientVariableContext): unknown {
  const entries = serverEntries(raw);
  if (entries.length === 0 || !isRecord(raw)) return raw;
  const home = context.env.HOME ?? homedir();
  const expand = (value: unknown): unknown =>
    typeof value !== 'string'
      ? value
      : value.replace(CLIENT_VARIABLE, (match, escaped: string, name: string, fallback?: string) => {
          if (escaped === '$') return match;
          if (name === 'userHome') return home;
          if (name === 'workspaceFolder') return context.baseDir;
          if (fallback !== undefined) return `\${env:${name}:-${fallback}}`;
          return Object.hasOwn(context.env, name) && context.env[name] !== undefined
            ? `\${env:${name}}`
            : match;
        });
  const expandMap = (map: unknown): unknown =>
    isRecord(map)
      ? Object.fromEntries(Object.entries(map).map(([name, value]) => [name, expand(value)]))
      : map;
  const copy: Record<string, unknown> = { ...raw };
  for (const { section, key, entry } of entries) {
    const expanded: Record<string, unknown> = { ...entry };
    for (const field of ['url', 'serverUrl'] as const) {
      if (field in entry) expanded[field] = expand(entry[field]);
    }
    for (const field of ['env', 'headers'] as const) {
      if (field in entry) expanded[field] = expandMap(entry[field]);
    }
    // A fresh section copy per section: the document's own objects are never written to.
    if (copy[section] === raw[section]) copy[section] = { ...(raw[section] as Record<string, unknown>) };
    (copy[section] as Record<string, unknown>)[key] = expanded;
  }
  return copy;
}

/**
 * Parses a dotenv file: `NAME=value` lines, `export ` allowed, `#` comments, values in single
 * quotes literal, in double quotes with `\n` escapes, unquoted ones trimmed and cut at ` #`.
 */
export function parseDotenv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, name = '', rawValue = ''] = match;
    let value = rawValue.trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.lastIndexOf(quote) > 0) {
      value = value.slice(1, value.lastIndexOf(quote));
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    vars[name] = value;
  }
  return vars;
}

/** Context of `loadEnvFiles`. */
export interface EnvFileContext {
  /** Relative `envFile` paths and `${workspaceFolder}` resolve here (the config file's directory). */
  baseDir: string;
  env: Record<string, string | undefined>;
  source: string | undefined;
}

/**
 * Reads the `envFile` of every stdio server entry (Cursor / VS Code) and returns a copy of the raw
 * document whose entries' `env` has the file's variables added (`env` given in the entry wins).
 * `${workspaceFolder}` and `${userHome}` in the path are understood, as in those editors.
 *
 * @throws GatewayError `config_invalid` naming the entry when the file cannot be read.
 */
export async function loadEnvFiles(raw: unknown, context: EnvFileContext): Promise<unknown> {
  const entries = serverEntries(raw).filter(({ entry }) => typeof entry.envFile === 'string');
  if (entries.length === 0 || !isRecord(raw)) return raw;
  const copy: Record<string, unknown> = { ...raw };
  for (const { section, key, entry } of entries) {
    const where = formatConfigPath([section, key, 'envFile']);
    const home = context.env.HOME ?? homedir();
    const path = resolve(
      context.baseDir,
      String(entry.envFile)
        .replaceAll('${workspaceFolder}', context.baseDir)
        .replaceAll('${userHome}', home)
        .replace(/^~(?=\/|$)/, home),
    );
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const label = context.source === undefined ? 'Invalid config' : `Invalid config (${context.source})`;
      throw new GatewayError('config_invalid', `${label}: ${where}: cannot read ${path}: ${reason}`, {
        details: { path: where, file: path, source: context.source },
        cause: error,
      });
    }
    const sectionCopy = { ...(copy[section] as Record<string, unknown>) };
    const given = isRecord(entry.env) ? entry.env : {};
    sectionCopy[key] = { ...entry, env: { ...parseDotenv(text), ...given } };
    copy[section] = sectionCopy;
  }
  return copy;
}
