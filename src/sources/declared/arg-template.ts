import { GatewayError } from '../../foundation/model/gateway-error.js';

/*
 * The templates of declared tools (`endpoints:` URLs, headers and bodies, `commands:` arguments):
 * `{name}` stands for the argument `name`. Deliberately tiny — a name, no expressions — because a
 * declared tool only forwards its arguments; anything richer is a skill or a module. Only
 * identifiers in braces are placeholders, so JSON or other braces in text stay as written.
 */

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const EXACT = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** One `{name}` placeholder found in a template, with the config key that holds it. */
export interface TemplateUse {
  /** The argument named. */
  name: string;
  /** Where in the entry: `url`, `headers.X-Id`, `body.user.id`, `args[1]`. */
  key: string;
}

/** The argument names a string uses, in order. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string);
}

/** Every placeholder of a value (strings inside objects and arrays too), with its key. */
export function templateUses(value: unknown, key: string): TemplateUse[] {
  if (typeof value === 'string') return placeholdersOf(value).map((name) => ({ name, key }));
  if (Array.isArray(value)) return value.flatMap((item, index) => templateUses(item, `${key}[${index}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, item]) => templateUses(item, `${key}.${k}`));
  }
  return [];
}

/** How an argument reads inside text: strings as they are, other values as JSON, absent as nothing. */
export function argText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * A string template with its placeholders replaced; `encode` is applied to each argument's text
 * (a URL path segment is percent-encoded, a header is not).
 */
export function renderText(
  text: string,
  args: Readonly<Record<string, unknown>>,
  encode: (value: string) => string = (value) => value,
): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => encode(argText(args[name])));
}

/**
 * Whether the string is exactly one placeholder: its value is then the argument itself, type kept
 * (`body: { id: "{id}" }` sends a number as a number), and an absent argument leaves its key out.
 */
export function exactPlaceholder(text: string): string | undefined {
  return EXACT.exec(text)?.[1];
}

/**
 * A JSON value template resolved: exact placeholders keep the argument's type (absent: the key is
 * left out, an array item is `null`), placeholders inside text become text.
 */
export function renderValue(value: unknown, args: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    const exact = exactPlaceholder(value);
    return exact === undefined ? renderText(value, args) : args[exact];
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, args) ?? null);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = renderValue(item, args);
      // defineProperty: a `__proto__` key stays data.
      if (rendered !== undefined) {
        Object.defineProperty(out, key, {
          value: rendered,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  }
  return value;
}

/**
 * Refuses a template naming an argument the input schema does not declare: a typo would otherwise
 * send an empty value at every call. `label` names the tool (`endpoints.get_user`).
 */
export function checkTemplateNames(
  uses: readonly TemplateUse[],
  declared: ReadonlySet<string>,
  label: string,
): void {
  const unknown = uses.find((use) => !declared.has(use.name));
  if (!unknown) return;
  throw new GatewayError(
    'config_invalid',
    `${label}.${unknown.key}: the template names "{${unknown.name}}", which is not an argument of ` +
      `the tool (inputSchema declares ${[...declared].map((n) => `"${n}"`).join(', ') || 'none'})`,
    { details: { key: `${label}.${unknown.key}`, argument: unknown.name } },
  );
}
