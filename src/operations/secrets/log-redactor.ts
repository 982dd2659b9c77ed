import { isSensitiveKey, REDACTED, sensitiveJsonKeyPattern } from './sensitive-key.js';

export { REDACTED } from './sensitive-key.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A sensitive JSON key, cheap to look for: most lines have none and are then left as they are.
// A false hit (the text `"token":` inside a message) costs a parse that changes nothing.
const SENSITIVE_KEY_IN_JSON = sensitiveJsonKeyPattern();

function censorKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(censorKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = isSensitiveKey(key) ? REDACTED : censorKeys(item);
  }
  return out;
}

function censorLine(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  const newline = line.endsWith('\n') ? '\n' : '';
  return `${JSON.stringify(censorKeys(parsed))}${newline}`;
}

/**
 * Makes the function that cleans one serialized JSON log line: values under sensitive keys (`isSensitiveKey`, the rule the call log uses too)
 * become {@link REDACTED}, then every occurrence of a `mask` value (resolved secrets) anywhere in
 * the line — message, fields at any depth, error messages and stacks — does too.
 *
 * Working on the serialized line covers everything pino writes (bindings of child loggers,
 * serialized errors) in one place. A line without any sensitive key or secret costs two regex
 * scans.
 */
export function createLogRedactor(mask: readonly string[] = []): (line: string) => string {
  // A value appears in the line JSON-escaped (`"` as `\"`, a newline as `\n`), so that is the form
  // looked for. Longest first: a secret containing another one is masked whole.
  const forms = [...new Set(mask.filter((value) => value !== '').map((v) => JSON.stringify(v).slice(1, -1)))];
  forms.sort((a, b) => b.length - a.length);
  const secrets = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join('|'), 'g');
  return (line) => {
    const censored = SENSITIVE_KEY_IN_JSON.test(line) ? censorLine(line) : line;
    return secrets === undefined ? censored : censored.replace(secrets, REDACTED);
  };
}
