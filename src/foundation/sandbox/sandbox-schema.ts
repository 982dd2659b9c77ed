import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { int } from '../schema/config-values.js';
import { hostPatternProblem } from './host-pattern.js';

/*
 * The `sandbox` key of a stdio server entry (`servers.<name>.sandbox`): `off`, `on`, `required`, or
 * a profile (which means `on`). Unknown keys, paths that do not exist, host patterns that cannot
 * match are refused at config load, each naming its key.
 */

/** `~/x` as the gateway user's home; any other path must be absolute. */
export function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? path.join(homedir(), file.slice(1)) : file;
}

const absolutePath = z
  .string()
  .min(1)
  .transform((given) => expandHome(given.trim()))
  .refine((given) => path.isAbsolute(given), { error: 'must be an absolute path (or start with "~/")' });

const existingDirectory = absolutePath.superRefine((given, ctx) => {
  if (!existsSync(given)) ctx.addIssue({ code: 'custom', message: `${given} does not exist` });
  else if (!statSync(given).isDirectory())
    ctx.addIssue({ code: 'custom', message: `${given} is not a directory` });
});

const hostPattern = z.string().superRefine((given, ctx) => {
  const problem = hostPatternProblem(given);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `"${given}" ${problem}` });
});

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A sandbox profile as written in a server entry. */
export const sandboxProfileSchema = z
  .strictObject({
    filesystem: z
      .strictObject({
        write: z
          .array(existingDirectory)
          .default([])
          .describe('Directories the server may write besides its scratch directory (must exist).'),
        deny: z
          .array(absolutePath)
          .default([])
          .describe('Paths it may not read, added to the built-in credential list.'),
      })
      .optional()
      .describe('What the sandboxed process may write and may not read.'),
    network: z
      .union([
        z.enum(['open', 'none']),
        z.strictObject({
          allow: z
            .array(hostPattern)
            .min(1)
            .describe('Hosts it may reach (`host`, `host:port`, `*.example.com`), through the egress proxy.'),
        }),
      ])
      .default('open')
      .describe('`open` (default), `none`, or `{ allow: ["host[:port]", "*.example.com"] }`.'),
    secrets: z
      .record(
        z.string().regex(ENV_NAME, { error: 'must be an environment variable name' }),
        z.strictObject({
          hosts: z
            .array(hostPattern)
            .min(1)
            .describe(
              'Hosts whose plain-HTTP requests get the real value in place of the placeholder (by the egress proxy).',
            ),
        }),
      )
      .optional()
      .describe("Variables of the server's `env` bound to hosts: the server sees a placeholder."),
    limits: z
      .strictObject({
        memoryMb: int(16, 1_048_576)
          .optional()
          .describe(
            "Resident memory summed over the sandbox's processes, in MiB; over it they are all killed.",
          ),
        pids: int(1, 100_000)
          .optional()
          .describe(
            'Processes alive in the sandbox at once (threads not counted); over it they are all killed.',
          ),
        cpuSeconds: int(1)
          .optional()
          .describe(
            "CPU seconds (user and system, children included) of the sandbox's processes; over it they are all killed.",
          ),
      })
      .optional()
      .describe("Enforced by the sandbox's launcher over all of its processes (docs/SANDBOX.md)."),
  })
  .superRefine((profile, ctx) => {
    if (profile.secrets !== undefined && typeof profile.network === 'string') {
      ctx.addIssue({
        code: 'custom',
        path: ['secrets'],
        message:
          'needs network: { allow: [...] }: the egress proxy puts a bound secret into requests, and only an allow-list network goes through it',
      });
    }
  });

/** `servers.<name>.sandbox`. */
export const serverSandboxSchema = z.union([z.enum(['off', 'on', 'required']), sandboxProfileSchema]);

/** `servers.<name>.sandbox` parsed. */
export type ServerSandboxConfig = z.output<typeof serverSandboxSchema>;
/** A profile object parsed. */
export type SandboxProfileConfig = z.output<typeof sandboxProfileSchema>;
