import { z } from 'zod';
import { serverSandboxSchema } from '../../foundation/sandbox/sandbox-schema.js';
import { int, nonEmptyString, stringMap } from '../../foundation/schema/config-values.js';
import { DECLARED_TOOL_FIELDS, type DeclaredGroup } from '../declared/declared-section.js';

/** One program as a tool (`commands: { <tool name>: … }`), run without a shell. */
export const commandEntrySchema = z.strictObject({
  ...DECLARED_TOOL_FIELDS,
  command: nonEmptyString().describe(
    'The program: a name looked up in PATH, or a path (relative to the config file).',
  ),
  args: z
    .array(z.string())
    .optional()
    .describe(
      'Its arguments, each a template: `{name}` is the argument `name`. An item that is exactly `"{name}"` is left out when the argument is absent, and gives one item per element of a list.',
    ),
  stdin: z
    .enum(['json', 'none'])
    .optional()
    .describe("`json`: the call's arguments are written to the program's stdin as JSON. Default `none`."),
  cwd: nonEmptyString()
    .optional()
    .describe("Working folder (relative to the config file). Default: the config file's folder."),
  env: stringMap()
    .optional()
    .describe(
      "Environment variables given to the program, besides PATH, HOME and LANG (nothing else of the gateway's).",
    ),
  timeoutMs: int(1).optional().describe('Time limit; the program is killed after it. Default 30000.'),
  maxOutputBytes: int(1).optional().describe('Largest stdout read; more fails the call. Default 1 MiB.'),
  sandbox: serverSandboxSchema
    .optional()
    .describe(
      'How the program is confined, as a stdio server is (`off`, `on`, `required` or a profile; docs/SANDBOX.md); default `sandbox.default`.',
    ),
});

/** One entry of `commands:` as validated. */
export type CommandEntry = z.output<typeof commandEntrySchema>;

/** The commands of one namespace: one source. */
export type CommandGroup = DeclaredGroup<CommandEntry>;
