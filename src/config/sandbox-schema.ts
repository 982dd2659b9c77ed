import { z } from 'zod';

export const sandboxSection = z
  .strictObject({
    default: z
      .enum(['on', 'off', 'required'])
      .default('on')
      .describe(
        "`on` (default): sandboxed where an engine exists, else unconfined with one warning; `off`; `required`: a server that cannot be sandboxed does not start. A server's own `sandbox` wins.",
      ),
    engine: z
      .enum(['auto', 'bwrap', 'srt'])
      .default('auto')
      .superRefine((engine, ctx) => {
        if (engine === 'srt') {
          ctx.addIssue({
            code: 'custom',
            message:
              'srt (@anthropic-ai/sandbox-runtime) is not supported by this build: it needs Node >= 22.12 and is not bundled; use "bwrap" or "auto" (bubblewrap)',
          });
        }
      })
      .describe(
        "`auto` / `bwrap`: bubblewrap. `srt` (Anthropic's sandbox-runtime) is named so that a config asking for it gets a clear refusal rather than another engine.",
      ),
    audit: z
      .enum(['refused', 'all'])
      .default('refused')
      .describe('`refused` (default): log refused connections; `all`: allowed ones too.'),
  })
  .prefault({})
  .describe(
    "The `sandbox` section: whether stdio servers (and code mode's `process` runtime) run in an OS sandbox by default, with which engine, and what the egress audit logs (docs/SANDBOX.md).",
  );

/** The parsed `sandbox` section. */
export type SandboxSettings = z.output<typeof sandboxSection>;
