import { Environment, ParseError, TypeError as CelTypeError } from '@marcbachmann/cel-js';
import type { PolicyEffect, PolicyRuleDefinition } from './policy-types.js';
import { toolPatterns } from './tool-pattern.js';

/** The variables a rule's `when` may name; any other name is refused at load. */
export const CEL_VARIABLES = ['caller', 'tool', 'args', 'surface', 'now'] as const;

/** The values a compiled `when` is evaluated against (see `policyInput`). */
export interface CelInput {
  caller: Record<string, unknown>;
  tool: Record<string, unknown>;
  args: Record<string, unknown>;
  surface: string;
  now: Date;
}

/** One rule, compiled once at load. */
export interface CompiledRule {
  name: string;
  effect: PolicyEffect;
  reason: string | undefined;
  /** Whether the rule concerns a tool (its `tools` patterns). */
  matchesTool(toolId: string): boolean;
  /** The compiled `when`; absent: the rule matches every call of its tools. Throws on a runtime error. */
  when: ((input: CelInput) => unknown) | undefined;
  /**
   * True when the `when` names `args`, `now` or `surface`: the rule may decide differently for two
   * calls of the same caller and tool, so it can never hide a tool from a listing.
   */
  perCall: boolean;
}

/** A rule that did not compile: which rule, where in its expression, and why. */
export class RuleCompileError extends Error {
  override readonly name = 'RuleCompileError';
  constructor(
    readonly rule: string,
    /** 1-based line and column in the `when` text. */
    readonly line: number,
    readonly column: number,
    readonly summary: string,
  ) {
    super(`rule "${rule}": ${summary} at line ${line}, column ${column}`);
  }
}

let environment: Environment | undefined;

/**
 * The one CEL environment every rule compiles in, made on first use (making one costs more than
 * compiling a rule). Variables are declared, so a misspelt name (`arg.repo`) is a load error, not a
 * rule that silently never matches.
 */
function celEnvironment(): Environment {
  environment ??= new Environment({ enableOptionalTypes: true })
    .registerVariable('caller', 'map')
    .registerVariable('tool', 'map')
    .registerVariable('args', 'map')
    .registerVariable('surface', 'string')
    .registerVariable('now', 'google.protobuf.Timestamp');
  return environment;
}

/**
 * Compiles one rule: its tool patterns and its `when`. Throws {@link RuleCompileError} for an
 * expression that does not parse, names an unknown variable, or cannot be a boolean.
 */
export function compileRule(definition: PolicyRuleDefinition): CompiledRule {
  const { name, effect, when } = definition;
  let compiled: CompiledRule['when'];
  let perCall = false;
  if (when !== undefined) {
    const env = celEnvironment();
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = env.parse(when);
    } catch (error) {
      throw compileError(name, when, error);
    }
    const checked = parsed.check();
    if (!checked.valid) throw compileError(name, when, checked.error);
    if (checked.type !== 'bool' && checked.type !== 'dyn') {
      throw new RuleCompileError(name, 1, 1, `"when" must be a boolean expression, not ${checked.type}`);
    }
    perCall = namesAny(parsed.ast, new Set(['args', 'now', 'surface']));
    compiled = parsed as (input: CelInput) => unknown;
  }
  return {
    name,
    effect,
    reason: definition.reason,
    matchesTool: toolPatterns(definition.tools),
    when: compiled,
    perCall,
  };
}

function compileError(rule: string, text: string, error: unknown): RuleCompileError {
  const known = error instanceof ParseError || error instanceof CelTypeError;
  const offset = known ? (error.range?.start ?? 0) : 0;
  const summary = known ? error.summary : error instanceof Error ? error.message : String(error);
  const { line, column } = lineAndColumn(text, offset);
  return new RuleCompileError(rule, line, column, summary);
}

/** The 1-based line and column of `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** Whether the AST names any of `names` as a variable (walks every node: the ASTs are small). */
function namesAny(node: unknown, names: ReadonlySet<string>): boolean {
  if (Array.isArray(node)) return node.some((child) => namesAny(child, names));
  if (typeof node !== 'object' || node === null || !('op' in node)) return false;
  const { op, args } = node as { op: string; args: unknown };
  if (op === 'id') return typeof args === 'string' && names.has(args);
  return namesAny(args, names);
}
