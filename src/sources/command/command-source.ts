import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { JsonSchema } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { exactPlaceholder, templateUses } from '../declared/arg-template.js';
import { declaredInputSchema } from '../declared/declared-input-schema.js';
import { declaredTool } from '../declared/declared-section.js';
import { type SandboxContext, serverSandboxPlan } from '../sandbox/server-sandbox.js';
import { CommandBackend } from './command-backend.js';
import type { CommandGroup } from './command-entry.js';

/** Defaults of a `commands:` entry. */
export const COMMAND_DEFAULTS = { timeoutMs: 30_000, maxOutputBytes: 1024 * 1024 } as const;

/** The gateway's variables a command gets; nothing else (no credential leaks into a program). */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'SYSTEMROOT'];

/** What the driver gives the loader. */
export interface CommandSourceContext {
  sourceId: string;
  baseDir: string;
  log: Logger;
  /** How programs are sandboxed (`sandbox:`); absent: they run unconfined. */
  sandbox?: SandboxContext;
}

/**
 * The tools of one namespace of `commands:`. Each program is found before anything is published
 * (in PATH, or at its path relative to the config file): a missing one fails the source with
 * `config_invalid` naming `commands.<tool>.command`, and the gateway serves the rest.
 */
export async function loadCommandSource(
  group: CommandGroup,
  context: CommandSourceContext,
): Promise<CatalogEntry[]> {
  const entries: CatalogEntry[] = [];
  for (const [name, entry] of group.tools) {
    const label = `${group.section}.${name}`;
    const program = await findProgram(entry.command, context.baseDir, label);
    const stdin = entry.stdin ?? 'none';
    const uses = templateUses(entry.args ?? [], 'args');
    let inputSchema: JsonSchema = declaredInputSchema(entry.inputSchema, uses, label, (use) => {
      const template = entry.args?.[Number(/\[(\d+)\]$/.exec(use.key)?.[1])];
      // An item that is exactly `{name}` may be absent (it is then left out); inside text it may not.
      return {
        schema: { type: 'string' },
        required: template === undefined || exactPlaceholder(template) === undefined,
      };
    });
    // With JSON on stdin the program reads whatever it is given: an inferred schema stays open.
    if (entry.inputSchema === undefined && stdin === 'json')
      inputSchema = { ...inputSchema, additionalProperties: true };
    const timeoutMs = entry.timeoutMs ?? COMMAND_DEFAULTS.timeoutMs;
    const env: Record<string, string> = {};
    for (const key of INHERITED_ENV) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    Object.assign(env, entry.env ?? {});
    const backend = new CommandBackend({
      label,
      program,
      args: entry.args ?? [],
      stdin,
      cwd: path.resolve(context.baseDir, entry.cwd ?? '.'),
      env,
      timeoutMs,
      maxOutputBytes: entry.maxOutputBytes ?? COMMAND_DEFAULTS.maxOutputBytes,
      ...(context.sandbox === undefined
        ? {}
        : {
            sandbox: serverSandboxPlan(
              label,
              entry.sandbox,
              entry.args ?? [],
              context.sandbox,
              entry.env ?? {},
            ),
            ownEnv: entry.env ?? {},
          }),
    });
    const tool = declaredTool({
      sourceId: context.sourceId,
      kind: 'command',
      namespace: group.namespace,
      name,
      entry,
      inputSchema,
      description: `Runs the program ${path.basename(entry.command)}${entry.args?.length ? ` ${entry.args.join(' ')}` : ''}.`,
      annotations: { openWorldHint: false },
      tags: ['command', 'program'],
      timeoutMs,
      notes: `Declared in the config (${label}): runs ${program} without a shell${stdin === 'json' ? ', the arguments as JSON on stdin' : ''}.`,
    });
    entries.push({ tool, backend });
  }
  context.log.info({ source: context.sourceId, tools: entries.length }, 'commands loaded');
  return entries;
}

/** The program's path: `command` when it has a folder part, else the first match in PATH. */
async function findProgram(command: string, baseDir: string, label: string): Promise<string> {
  const candidates =
    command.includes('/') || command.includes('\\')
      ? [path.resolve(baseDir, command)]
      : (process.env.PATH ?? '')
          .split(path.delimiter)
          .filter(Boolean)
          .map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here (or not executable): the next one.
    }
  }
  throw new GatewayError(
    'config_invalid',
    `${label}.command: "${command}" is not an executable program ${
      candidates.length === 1 ? `(${candidates[0]})` : 'found in PATH'
    }`,
    { details: { key: `${label}.command`, command } },
  );
}
