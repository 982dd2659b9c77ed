// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the starter file shows ${env:…} references.
import { createRequire } from 'node:module';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { parseConfigText, parseConfigValue } from './load-config.js';

const require = createRequire(import.meta.url);

/** Options of `starterConfig`. */
export interface StarterConfigOptions {
  /** The `$schema` reference for editors (a path or URL of `aperture.schema.json`); none when absent. */
  schemaRef?: string;
  /** Server entries to import, as a client's `mcpServers` block has them. */
  servers?: Record<string, unknown>;
  /** Where `servers` came from, named in a comment. */
  importedFrom?: string;
  /** Variables for validating imported entries that use `${env:…}`; default none. */
  env?: Record<string, string | undefined>;
  /** How the file's comments name the CLI (`aperture`, `npx aperture`, `node dist/cli/main.js`); default `aperture`. */
  command?: string;
}

/** The starter file, and what happened to the imported servers. */
export interface StarterConfig {
  text: string;
  imported: string[];
  /** Entries left out (written commented out), with the reason. */
  skipped: { key: string; reason: string }[];
}

// The examples are one block under `servers:` (Aperture's own key for the same entries) rather
// than under the `mcpServers: {}` line: uncommented there, they would follow a flow mapping, which
// is not YAML. Uncommented as a whole, this block is a valid config (starter-config.test.ts).
const EXAMPLE_SERVERS = `mcpServers: {}
# To start from examples, uncomment this block (servers: takes the same entries as mcpServers):
# servers:
#   everything:                                  # a stdio server: a command the gateway starts
#     command: npx
#     args: ["-y", "@modelcontextprotocol/server-everything"]
#   remote:                                      # a remote server: Streamable HTTP, else SSE
#     url: https://tools.example.com/mcp
#     headers: { Authorization: "Bearer \${env:REMOTE_TOKEN:-}" }
`;

function yaml(): typeof import('yaml') {
  return require('yaml') as typeof import('yaml');
}

/** A YAML block for `mcpServers`, entries indented under it; every line prefixed with `prefix`. */
function serversYaml(entries: Record<string, unknown>, prefix = ''): string {
  const text = yaml().stringify({ mcpServers: entries }, { lineWidth: 0 });
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/**
 * Builds a commented starter `aperture.yaml`: the common settings with their defaults, and the
 * `mcpServers` block imported from a client (or commented examples). Imported entries the config
 * would refuse (a key this version does not know, two keys for one namespace) are written commented
 * out with the reason, so the file always passes `aperture config validate`.
 *
 * @throws GatewayError `internal` if the result does not validate (a bug here, not the user's).
 */
export function starterConfig(options: StarterConfigOptions = {}): StarterConfig {
  const env = options.env ?? {};
  const command = options.command ?? 'aperture';
  const accepted: Record<string, unknown> = {};
  const skipped: { key: string; reason: string }[] = [];
  for (const [key, entry] of Object.entries(options.servers ?? {})) {
    try {
      parseConfigValue({ mcpServers: { ...accepted, [key]: entry } }, { env });
      accepted[key] = entry;
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^Invalid config: /, '') : String(error);
      skipped.push({ key, reason });
    }
  }
  const lines = [
    ...(options.schemaRef ? [`# yaml-language-server: $schema=${options.schemaRef}`] : []),
    '# Aperture: one gateway for the tools of your MCP servers, OpenAPI services and agents.',
    '# Every key is optional; commented lines show defaults and common choices (README.md, "Configuration").',
    `# Check this file:  ${command} config validate`,
    `# Serve it:         ${command} serve            (http://127.0.0.1:8080/mcp; --stdio for stdio clients)`,
    '',
    'server:',
    '  host: 127.0.0.1                # 0.0.0.0 to listen on every interface',
    '  port: 8080',
    '',
    '# What tools/list shows: metatools (search_tools → describe_tool → run_tool), flat (every tool',
    '# directly, as namespace__name), or auto: the metatools, plus every tool directly while listing',
    '# them costs fewer tokens than a search and a describe: about 8-30 ordinary tools. The six',
    '# built-in tools have long schemas (2,882 tokens flat against 2,067), so they stay behind them.',
    'exposure: auto',
    '',
    'tools:',
    '  builtin: true                  # plantuml:*, time:*, json:query, text:stats',
    '  # modules: ["./tools/*.ts"]    # your own tool modules, relative to this file',
    '',
    '# Downstream MCP servers, in the mcpServers format of Claude Desktop, Cursor, Claude Code, Cline,',
    '# Windsurf and VS Code. ${env:NAME} and ${secret:NAME} read values at start (${env:NAME:-default}).',
  ];
  const imported = Object.keys(accepted);
  if (options.importedFrom !== undefined) {
    lines.push(`# Imported from ${options.importedFrom} by aperture init.`);
  }
  lines.push(imported.length > 0 ? serversYaml(accepted) : EXAMPLE_SERVERS.trimEnd());
  for (const { key, reason } of skipped) {
    lines.push(`  # Not imported: ${reason.replace(/\s+/g, ' ')}`);
    lines.push(serversYaml({ [key]: options.servers?.[key] }, '  # ').replace(/^ {2}# mcpServers:\n/, ''));
  }
  lines.push(
    '',
    '# search:',
    '#   strategy: bm25               # lexical | bm25 | semantic | hybrid',
    '# observability:',
    '#   logLevel: info               # JSON lines on stderr',
    '',
  );
  const text = lines.join('\n');
  try {
    parseConfigText(text, 'yaml', { env, source: 'aperture.yaml' });
  } catch (error) {
    throw new GatewayError('internal', 'the starter config does not validate', { cause: error });
  }
  return { text, imported, skipped };
}
