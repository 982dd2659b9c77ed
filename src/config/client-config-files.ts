import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { isRecord } from '../foundation/util/is-record.js';

/** A config file of an MCP client that may hold an `mcpServers` block. */
export interface ClientConfigFile {
  /** The client, for messages: "Claude Desktop", "Cursor", … */
  client: string;
  path: string;
}

/** Where to look: the user's home (overridable, so tests use a temporary one) and the project. */
export interface ClientConfigLocations {
  home: string;
  cwd: string;
  /** Windows' `%APPDATA%`, when set. */
  appData?: string | undefined;
}

/**
 * The client config files `aperture init` looks for, most specific first: the project's own
 * (Claude Code `.mcp.json`, VS Code `.vscode/mcp.json`, Cursor `.cursor/mcp.json`), then the
 * user's (Claude Desktop on Linux, macOS and Windows, Cursor, Claude Code `~/.claude.json`).
 */
export function clientConfigCandidates(where: ClientConfigLocations): ClientConfigFile[] {
  const { home, cwd, appData } = where;
  return [
    { client: 'Claude Code (project)', path: join(cwd, '.mcp.json') },
    { client: 'VS Code (project)', path: join(cwd, '.vscode', 'mcp.json') },
    { client: 'Cursor (project)', path: join(cwd, '.cursor', 'mcp.json') },
    { client: 'Claude Desktop', path: join(home, '.config', 'Claude', 'claude_desktop_config.json') },
    {
      client: 'Claude Desktop',
      path: join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
    },
    ...(appData
      ? [{ client: 'Claude Desktop', path: join(appData, 'Claude', 'claude_desktop_config.json') }]
      : []),
    { client: 'Cursor', path: join(home, '.cursor', 'mcp.json') },
    { client: 'Claude Code', path: join(home, '.claude.json') },
  ];
}

/**
 * JSON with comments and trailing commas (VS Code's `mcp.json` is JSONC) to plain JSON. Comments
 * and trailing commas become spaces (newlines are kept), so a JSON error's line and column still
 * point into the text as written.
 */
export function stripJsonComments(text: string): string {
  const blank = (part: string) => part.replace(/[^\n]/g, ' ');
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (char === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out += blank(text.slice(i, stop));
      i = stop - 1;
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += blank(text.slice(i, stop));
      i = stop - 1;
    } else {
      out += char;
    }
  }
  return out.replace(/,(\s*[}\]])/g, ' $1');
}

/**
 * The server entries of a client config file: its `mcpServers` (Claude Desktop, Cursor, Cline,
 * Windsurf, Claude Code), else `servers` (VS Code); for `~/.claude.json`, the user-level
 * `mcpServers` plus those of the project at `cwd`.
 *
 * @throws GatewayError `invalid_request` when the file cannot be read or is not JSON.
 */
export async function readClientServers(path: string, cwd: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new GatewayError('invalid_request', `cannot read ${path}: ${reason}`, {
      details: { file: path },
      cause: error,
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(stripJsonComments(text.replace(/^\uFEFF/, '')));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new GatewayError('invalid_request', `${path} is not a JSON client config: ${reason}`, {
      details: { file: path },
      cause: error,
    });
  }
  if (!isRecord(doc)) return {};
  const servers: Record<string, unknown> = {};
  const own = isRecord(doc.mcpServers) ? doc.mcpServers : isRecord(doc.servers) ? doc.servers : {};
  Object.assign(servers, own);
  const projects = doc.projects;
  if (isRecord(projects)) {
    const project = projects[resolve(cwd)];
    if (isRecord(project) && isRecord(project.mcpServers)) Object.assign(servers, project.mcpServers);
  }
  return servers;
}
