import { TypeError as CelTypeError, Environment, ParseError } from '@marcbachmann/cel-js';
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
  /**
   * False when the input certainly makes `when` false, decided without the CEL interpreter: the
   * `when` is a conjunction holding `caller.<field> == "literal"` (or `tool.…`, `surface`) and the
   * field differs. Sound because `&&` is false when any side is, whatever the others do (errors
   * included), and the fields compared are always strings. Rules per identity or per tool are the
   * common case; skipping them costs a string comparison instead of an evaluation.
   */
  mayMatch(input: CelInput): boolean;
}

/** The input fields that are always present strings (`callerInput`, `toolInput`, `surface`). */
const STRING_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  caller: new Set(['identity', 'key', 'method', 'toolset']),
  tool: new Set(['id', 'namespace', 'name']),
};

/** One `field == "literal"` conjunct: how to read the field, and the literal. */
interface Guard {
  read(input: CelInput): unknown;
  value: string;
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
  let guards: Guard[] = [];
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
    guards = conjuncts(parsed.ast).flatMap((node) => {
      const guard = guardOf(node);
      return guard ? [guard] : [];
    });
  }
  return {
    name,
    effect,
    reason: definition.reason,
    matchesTool: toolPatterns(definition.tools),
    when: compiled,
    perCall,
    mayMatch:
      guards.length === 0
        ? () => true
        : (input) => guards.every((guard) => guard.read(input) === guard.value),
  };
}

/** The sides of a top-level `a && b && …` (the node itself when it is no conjunction). */
function conjuncts(node: unknown): unknown[] {
  if (isNode(node) && node.op === '&&' && Array.isArray(node.args)) return node.args.flatMap(conjuncts);
  return [node];
}

/** A guard for `caller.identity == "x"`, `"x" == tool.namespace`, `surface == "x"`; else undefined. */
function guardOf(node: unknown): Guard | undefined {
  if (!isNode(node) || node.op !== '==' || !Array.isArray(node.args)) return undefined;
  const [left, right] = node.args as unknown[];
  const literal = (n: unknown) =>
    isNode(n) && n.op === 'value' && typeof n.args === 'string' ? n.args : undefined;
  const field = (n: unknown): Guard['read'] | undefined => {
    if (!isNode(n)) return undefined;
    if (n.op === 'id' && n.args === 'surface') return (input) => input.surface;
    if (n.op !== '.' || !Array.isArray(n.args)) return undefined;
    const [object, key] = n.args as unknown[];
    if (!isNode(object) || object.op !== 'id' || typeof key !== 'string') return undefined;
    const variable = object.args;
    if ((variable !== 'caller' && variable !== 'tool') || !STRING_FIELDS[variable]?.has(key))
      return undefined;
    return (input) => input[variable][key];
  };
  const value = literal(right) ?? literal(left);
  const read = literal(right) === undefined ? field(right) : field(left);
  return value === undefined || read === undefined ? undefined : { read, value };
}

function isNode(node: unknown): node is { op: string; args: unknown } {
  return typeof node === 'object' && node !== null && 'op' in node;
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
  if (!isNode(node)) return false;
  if (node.op === 'id') return typeof node.args === 'string' && names.has(node.args);
  return namesAny(node.args, names);
}
