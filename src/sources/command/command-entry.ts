import { z } from 'zod';
import { serverSandboxSchema } from '../../foundation/sandbox/sandbox-schema.js';
import { int, nonEmptyString, stringMap } from '../../foundation/schema/config-values.js';
import { DECLARED_TOOL_FIELDS, type DeclaredGroup } from '../declared/declared-section.js';

/** One program as a tool (`commands: { <tool name>: … }`), run without a shell. */
export const commandEntrySchema = z.strictObject({
  ...DECLARED_TOOL_FIELDS,
  /** The program: a name looked up in PATH, or a path (relative to the config file). */
  command: nonEmptyString(),
  /**
   * Its arguments, each a template: `{name}` is the argument `name`. An item that is exactly
   * `"{name}"` is left out when the argument is absent, and gives one item per element of a list.
   */
  args: z.array(z.string()).optional(),
  /** `json`: the call's arguments are written to the program's stdin as JSON. Default `none`. */
  stdin: z.enum(['json', 'none']).optional(),
  /** Working folder (relative to the config file). Default: the config file's folder. */
  cwd: nonEmptyString().optional(),
  /** Environment variables given to the program, besides PATH, HOME and LANG (nothing else of the gateway's). */
  env: stringMap().optional(),
  /** Time limit; the program is killed after it. Default 30000. */
  timeoutMs: int(1).optional(),
  /** Largest stdout read; more fails the call. Default 1 MiB. */
  maxOutputBytes: int(1).optional(),
  /**
   * How the program is confined, as a stdio server is (`off`, `on`, `required` or a profile;
   * docs/SANDBOX.md); default `sandbox.default`.
   */
  sandbox: serverSandboxSchema.optional(),
});

/** One entry of `commands:` as validated. */
export type CommandEntry = z.output<typeof commandEntrySchema>;

/** The commands of one namespace: one source. */
export type CommandGroup = DeclaredGroup<CommandEntry>;
