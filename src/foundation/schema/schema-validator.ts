import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { GatewayError } from '../model/gateway-error.js';
import type { JsonSchema } from '../model/tool.js';
import { ajvRegExpEngine, schemaPatternProblem } from './bounded-regexp.js';

// ajv ships CommonJS; createRequire sidesteps the default-export interop differences across loaders.
const require = createRequire(import.meta.url);
type Ajv = InstanceType<typeof import('ajv').default>;

/**
 * An ajv instance with formats, built on first use: loading ajv and its formats costs some 30 ms,
 * which a stdio client would otherwise wait for before its first `tools/list` (nothing is
 * validated before the first call or the first user schema).
 */
function createAjv(draft: '2020-12' | 'draft-07'): Ajv {
  const Engine = (
    draft === '2020-12' ? require('ajv/dist/2020').default : require('ajv').default
  ) as typeof import('ajv').default;
  const ajv = new Engine(OPTIONS);
  (require('ajv-formats').default as (ajv: Ajv) => void)(ajv);
  return ajv;
}

/** One failed constraint, with the JSON Pointer of the offending value. */
export interface SchemaIssue {
  path: string;
  message: string;
}

export type ValidationOutcome = { valid: true } | { valid: false; issues: SchemaIssue[] };

const DRAFT7 = /draft-0[4-7]/;

/**
 * JSON Schema validation on ajv: 2020-12 by default, draft-07 when the schema says so.
 * Compiled validators are cached per schema object. Remote `$ref`s are never fetched: a schema
 * that needs one fails to compile and is reported, not followed.
 */
export class SchemaValidator {
  private modernAjv: Ajv | undefined;
  private draft7Ajv: Ajv | undefined;
  private readonly cache = new WeakMap<object, ValidateFunction>();

  private get modern(): Ajv {
    this.modernAjv ??= createAjv('2020-12');
    return this.modernAjv;
  }

  private get draft7(): Ajv {
    this.draft7Ajv ??= createAjv('draft-07');
    return this.draft7Ajv;
  }

  /** Compiles (once) and returns the validator; throws `invalid_request` for an unusable schema. */
  compile(schema: JsonSchema): ValidateFunction {
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const engine =
      typeof schema.$schema === 'string' && DRAFT7.test(schema.$schema) ? this.draft7 : this.modern;
    let fn: ValidateFunction;
    try {
      // `$id`s would collide across tools in ajv's registry; validate a copy without it.
      const { $id: _id, ...rest } = schema;
      fn = engine.compile(rest);
    } catch (error) {
      throw new GatewayError('invalid_request', `Unusable JSON Schema: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.cache.set(schema, fn);
    return fn;
  }

  /**
   * Why `schema` is not a valid JSON Schema (checked against the 2020-12 meta-schema), or has a
   * `pattern` the linear-time engine cannot run; undefined when it is usable: for schemas written
   * by users (override patches), checked when they are loaded.
   */
  schemaProblem(schema: JsonSchema): string | undefined {
    if (this.modern.validateSchema(schema) !== true)
      return this.modern.errorsText(this.modern.errors, { dataVar: 'schema' });
    const pattern = schemaPatternProblem(schema);
    return pattern === undefined ? undefined : `schema${pattern}`;
  }

  validate(schema: JsonSchema, value: unknown): ValidationOutcome {
    const fn = this.compile(schema);
    if (fn(value)) return { valid: true };
    return { valid: false, issues: (fn.errors ?? []).map(toIssue) };
  }
}

const OPTIONS = {
  allErrors: true,
  strict: false,
  allowUnionTypes: true,
  validateFormats: true,
  // Schemas come from downstream servers and callers' configs: a backtracking `RegExp` would let
  // one `pattern` like `^(a+)+$` freeze the event loop, so every `pattern` and `patternProperties`
  // key runs on the linear-time engine; a pattern it cannot take fails the compilation.
  code: { regExp: ajvRegExpEngine },
  // Never resolve remote references: `loadSchema` stays unset (ajv's default is no loader).
} as const;

function toIssue(error: ErrorObject): SchemaIssue {
  let path = error.instancePath || '';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    path = `${path}/${params.missingProperty}`;
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    path = `${path}/${params.additionalProperty}`;
  }
  return { path: path || '/', message: error.message ?? error.keyword };
}

/** `"/a/b: must be string; /c: must have required property 'c'"`, for error messages. */
export function formatIssues(issues: readonly SchemaIssue[], max = 5): string {
  const shown = issues.slice(0, max).map((i) => `${i.path}: ${i.message}`);
  if (issues.length > max) shown.push(`(+${issues.length - max} more)`);
  return shown.join('; ');
}
