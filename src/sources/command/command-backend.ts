import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import { argText, exactPlaceholder, renderText } from '../declared/arg-template.js';
import { sandboxedStart } from '../mcp/sandboxed-start.js';
import type { ServerSandboxPlan } from '../sandbox/server-sandbox.js';
import { type CommandOutcome, spawnCommand } from './spawn-command.js';

/** A command tool as checked at load. */
export interface CommandPlan {
  label: string;
  /** The program, resolved (a path, or a name found in PATH). */
  program: string;
  args: readonly string[];
  stdin: 'json' | 'none';
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxOutputBytes: number;
  /** How it is confined (`commands.<tool>.sandbox`, else `sandbox.default`); absent: unconfined. */
  sandbox?: ServerSandboxPlan;
  /** Its own `env` only: what a sandboxed program gets besides the sandbox's minimal base. */
  ownEnv?: Readonly<Record<string, string>>;
}

/** Stderr shown in a failure message. */
const STDERR_EXCERPT = 1000;

/**
 * Runs one declared command: its argument templates filled in (one argv item each, no shell),
 * the call's arguments as JSON on stdin when `stdin: json`. A zero exit's stdout is the result —
 * parsed when it is JSON, else the text; any other exit is `execution_failed` with the code and
 * the end of stderr.
 */
export class CommandBackend implements ToolBackend {
  constructor(private readonly plan: CommandPlan) {}

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const argv = this.plan.args.flatMap((template) => renderArg(template, args));
    ctx.log.debug({ tool: tool.id, program: this.plan.program }, 'command call');
    const outcome = await this.spawn(argv, JSON.stringify(args), ctx);
    if (outcome.exitCode !== 0) {
      const how =
        outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited with ${outcome.exitCode}`;
      const stderr = outcome.stderr.trim().slice(-STDERR_EXCERPT);
      throw new GatewayError(
        'execution_failed',
        `${this.plan.label}: the command ${how}${stderr ? `: ${stderr}` : ''}`,
        {
          details: { exitCode: outcome.exitCode, signal: outcome.signal, stderr },
        },
      );
    }
    return parseOutput(outcome.stdout);
  }

  /** Runs the program with `argv`, confined as its plan says (bubblewrap around it, or nothing). */
  private async spawn(argv: string[], json: string, ctx: ExecutionContext): Promise<CommandOutcome> {
    const { plan } = this;
    const confined = await sandboxedStart(
      plan.sandbox,
      { command: plan.program, args: argv, env: plan.ownEnv ?? {}, cwd: plan.cwd },
      ctx.log,
    );
    try {
      return await spawnCommand(
        confined.command === undefined
          ? [plan.program, ...argv]
          : [confined.command, ...(confined.args ?? [])],
        {
          cwd: plan.cwd,
          env: confined.env ?? plan.env,
          stdin: plan.stdin === 'json' ? json : undefined,
          timeoutMs: plan.timeoutMs,
          maxOutputBytes: plan.maxOutputBytes,
          signal: ctx.signal,
          label: plan.label,
        },
      );
    } finally {
      await confined.release?.();
    }
  }
}

/** One argv template as argv items: an exact `{name}` gives none when absent and one per list item. */
function renderArg(template: string, args: Readonly<Record<string, unknown>>): string[] {
  const exact = exactPlaceholder(template);
  if (exact === undefined) return [renderText(template, args)];
  const value = args[exact];
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map(argText);
  return [argText(value)];
}

/** Stdout as a result: JSON when it parses (objects as they are, others as `{ result }`), else text. */
export function parseOutput(stdout: string): unknown {
  const text = stdout.trim();
  if (text.startsWith('{') || text.startsWith('[') || text.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { result: value };
    } catch {
      // Not JSON after all: the text is the result.
    }
  }
  return stdout;
}
