import type { Command } from 'commander';
import type { ApertureConfig } from '../config/config-schema.js';
import type { LoadedConfig } from '../config/load-config.js';
import { loadPolicyEngine } from '../execution/policy/load-policy-engine.js';
import type { PolicyEngine } from '../execution/policy/policy-engine.js';
import type { PolicyDecision } from '../execution/policy/policy-types.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import { parseToolId } from '../foundation/model/tool-id.js';
import {
  ANONYMOUS_CALLER,
  type CallerContext,
  type CallSurface,
  CLI_CALLER,
  LOCAL_CALLER,
} from '../foundation/ports/tool-backend.js';
import { RoleTable } from '../operations/auth/role-table.js';
import { type GlobalOptions, openOneShot, printJson, runOneShot } from './cli-context.js';

const SURFACES: readonly CallSurface[] = ['mcp', 'rest', 'a2a', 'code', 'chain', 'skill', 'cli'];

/**
 * The caller `--as NAME` (or an example's `as`) stands for: the API key of that name, with its
 * toolsets and admin flag, when `auth.apiKeys` has one; the fixed callers `cli`, `local` and
 * `anonymous`; else a caller of that identity proven by no method.
 */
export function policyCaller(as: string, config: ApertureConfig): CallerContext {
  const key = config.auth.apiKeys.find((entry) => entry.name === as);
  if (key) {
    // The key's roles grant as they do when the key is presented (toolsets, admin, caller.roles).
    const identity = new RoleTable(config.auth.roles ?? {}, undefined).apply({
      identity: key.name,
      method: 'api_key',
      ...(key.toolsets === undefined ? {} : { toolsets: key.toolsets }),
      ...(key.admin === true ? { admin: true } : {}),
      ...(key.roles === undefined ? {} : { roles: key.roles }),
    });
    return {
      identity: key.name,
      authMethod: 'api_key',
      ...(identity.toolsets === undefined ? {} : { toolsets: identity.toolsets }),
      ...(identity.admin === true ? { admin: true } : {}),
      ...(identity.roles === undefined ? {} : { roles: identity.roles }),
    };
  }
  const fixed = [CLI_CALLER, LOCAL_CALLER, ANONYMOUS_CALLER].find((caller) => caller.identity === as);
  return fixed ? { identity: fixed.identity } : { identity: as };
}

/** A tool known only by its id (no annotations, tags or metadata), for when no catalog is at hand. */
function bareTool(toolId: string): Tool {
  const { namespace, name } = parseToolId(toolId);
  return {
    id: toolId,
    namespace,
    name,
    description: '',
    inputSchema: { type: 'object' },
    annotations: {},
    tags: [],
    metadata: {},
    examples: [],
    origin: { sourceId: 'policy-test', kind: 'policy-test', originalName: name },
  };
}

/** One line saying what decided: `allow (default: no rule matched)`, `deny by rule "x" (cel): why`. */
export function describeDecision(decision: PolicyDecision): string {
  if (decision.rule === undefined) return `${decision.effect} (default: no rule matched)`;
  const by = decision.engine === 'cedar' ? `Cedar policy ${decision.rule}` : `rule "${decision.rule}"`;
  const reason = decision.reason === undefined ? '' : `: ${decision.reason}`;
  const error = decision.error === undefined ? '' : ` [the rule failed: ${decision.error}]`;
  return `${decision.effect} by ${by} (${decision.engine})${reason}${error}`;
}

/**
 * Runs every rule's `examples` against the whole policy (rules, preset, Cedar) and returns one
 * line per example whose decision is not the one expected. `tools` supplies catalog tools by id
 * (their annotations and tags matter); an id it lacks is judged as a bare tool.
 */
export async function policyExampleFailures(
  loaded: LoadedConfig,
  tools: (toolId: string) => Tool | undefined = () => undefined,
  engine?: PolicyEngine,
): Promise<string[]> {
  const { policies } = loaded.config;
  if (!policies.rules.some((rule) => rule.examples && rule.examples.length > 0)) return [];
  const judge = engine ?? (await loadPolicyEngine(policies, loaded.baseDir));
  const failures: string[] = [];
  for (const [index, rule] of policies.rules.entries()) {
    for (const [n, example] of (rule.examples ?? []).entries()) {
      const decision = judge.decide({
        tool: tools(example.tool) ?? bareTool(example.tool),
        args: example.args,
        caller: policyCaller(example.as, loaded.config),
        surface: example.surface,
      });
      if (decision.effect !== example.expect) {
        failures.push(
          `policies.rules.${index}.examples.${n} (rule "${rule.name}"): ${example.as} calling ${example.tool} ` +
            `expects ${example.expect}, got ${describeDecision(decision)}`,
        );
      }
    }
  }
  return failures;
}

/** `aperture policy test`: what the policy decides for one call, and what decided it. */
export function policyCommand(program: Command): void {
  const policy = program.command('policy').description('Work with the policy rules (policies)');
  policy
    .command('test')
    .description('Print the decision of the policy for one call, and the rule (or Cedar policy) that made it')
    .requiredOption(
      '--as <identity>',
      'the caller: an auth.apiKeys name (its toolsets and admin flag apply), or any identity',
    )
    .requiredOption('--tool <id>', 'the tool id called')
    .option('--args <json>', 'the arguments as a JSON object', '{}')
    .option('--surface <surface>', `the surface of the call: ${SURFACES.join(', ')}`, 'mcp')
    .option('--json', 'print JSON')
    .action(
      (
        options: { as: string; tool: string; args: string; surface: string; json?: boolean },
        command: Command,
      ) =>
        runOneShot(async () => {
          const args = parseArgs(options.args);
          if (!(SURFACES as readonly string[]).includes(options.surface)) {
            throw new GatewayError('invalid_request', `--surface must be one of ${SURFACES.join(', ')}`);
          }
          const { namespace } = parseToolId(options.tool);
          const global = command.optsWithGlobals<GlobalOptions>();
          const { gateway, loaded } = await openOneShot(global, undefined, { namespace });
          const engine = await loadPolicyEngine(loaded.config.policies, loaded.baseDir);
          const known = gateway.catalog.get(options.tool)?.tool;
          const tool = known ?? bareTool(options.tool);
          const caller = {
            ...policyCaller(options.as, loaded.config),
            surface: options.surface as CallSurface,
          };
          const decision = engine.decide({ tool, args, caller, surface: caller.surface });
          const hidden = engine.hides(tool, caller);
          if (options.json) return printJson({ ...decision, hidden, toolKnown: known !== undefined });
          process.stdout.write(`${describeDecision(decision)}\n`);
          if (hidden) process.stdout.write(`hidden: ${options.tool} is left out of this caller's lists\n`);
          if (!known)
            process.stderr.write(
              `warning: no tool "${options.tool}" in the catalog; judged without its annotations and tags\n`,
            );
        }),
    );
}

function parseArgs(text: string): Record<string, unknown> {
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch (error) {
    throw new GatewayError('invalid_request', `--args is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new GatewayError('invalid_request', '--args must be a JSON object');
  }
  return args as Record<string, unknown>;
}

/**
 * `config validate`'s check of the policies: the Cedar file is read and parsed as `serve` would
 * (`config_invalid` naming the position), then the rules' examples run; `config_invalid` lists
 * every example whose decision is not the expected one. Local tools supply annotations and tags;
 * other ids are judged as bare tools (servers are not started by a validation).
 */
export async function assertPolicyExamples(
  loaded: LoadedConfig,
  localTools: readonly { entries: readonly { tool: Tool }[] }[],
): Promise<void> {
  const engine = await loadPolicyEngine(loaded.config.policies, loaded.baseDir);
  const byId = new Map(
    localTools.flatMap((source) => source.entries.map((entry) => [entry.tool.id, entry.tool] as const)),
  );
  const failures = await policyExampleFailures(loaded, (id) => byId.get(id), engine);
  if (failures.length > 0) {
    throw new GatewayError('config_invalid', `policy examples failed:\n  ${failures.join('\n  ')}`, {
      details: { failures },
    });
  }
}
