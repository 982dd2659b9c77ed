import { setFlagsFromString } from 'node:v8';
import type { CedarValueJson, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { type CallerContext, callerKey } from '../../foundation/ports/tool-backend.js';

type CedarModule = typeof import('@cedar-policy/cedar-wasm/nodejs');

/** The two actions Aperture asks Cedar about. */
export type CedarAction = 'call_tool' | 'list_tool';

/** Cedar's answer for one request. */
export interface CedarDecision {
  allowed: boolean;
  /** The policies that decided (the forbids that matched, or the permits); by `@id` when given. */
  policies: string[];
  /** Policies that failed while evaluated (Cedar skips them); for logs. */
  errors: string[];
}

/** What one Cedar request is about. */
export interface CedarRequest {
  action: CedarAction;
  caller: CallerContext;
  tool: Tool;
  surface: string;
  /** Only for `call_tool`. */
  args?: Record<string, unknown>;
  now?: Date;
}

let loading: Promise<CedarModule> | undefined;
let setCounter = 0;

/**
 * The official Cedar engine (WebAssembly), loaded on first use: most configs have no Cedar file.
 *
 * V8 (Node 20 and 22) aborts the process ("Fatal error … unreachable code" in
 * `Deoptimizer::DoComputeBuiltinContinuation`) when optimized code that inlined a call into
 * WebAssembly is deoptimized lazily while the call is on the stack — which a gateway asking Cedar
 * and running CEL rules under load hits within seconds (bench/policy-authorize.ts reproduced it).
 * Turning that inlining off before the first call avoids it; it costs a JS→Wasm call a few
 * nanoseconds, against the tenth of a millisecond a Cedar request takes.
 */
function cedarModule(): Promise<CedarModule> {
  if (!loading) {
    setFlagsFromString('--no-turbo-inline-js-wasm-calls');
    loading = import('@cedar-policy/cedar-wasm/nodejs');
  }
  return loading;
}

/**
 * A Cedar policy set (`policies.cedar`), parsed once and kept in the engine's cache. The request
 * maps Aperture's inputs onto Cedar's: principal `Caller::"<caller key>"` (attributes `identity`,
 * `method`, `admin`, `confined`, `toolsets`, `claims`), action `Action::"call_tool"` or
 * `Action::"list_tool"`, resource `Tool::"<id>"` (attributes `namespace`, `name`, `tags`,
 * `annotations`, `metadata`), and context `{ args, surface, now }` (`now`: epoch milliseconds;
 * `args` only for `call_tool`). Cedar decides as Cedar does: nothing permits → deny.
 */
export class CedarPolicies {
  private constructor(
    private readonly cedar: CedarModule,
    private readonly setId: string,
    /** The file it came from (named in errors). */
    readonly file: string,
    private readonly listing: ListingShortcut | undefined,
  ) {}

  /**
   * Whether Cedar must be asked if `caller` may list tools: false when the set certainly allows
   * every `list_tool` request of this caller — an unconditional permit-all, and no forbid whose
   * action may be `list_tool` and whose principal may be this caller. Saves a WebAssembly request
   * per tool in the common case of forbids on calls, or on other callers.
   */
  listingNeedsCedar(caller: CallerContext): boolean {
    if (!this.listing) return true;
    const key = callerKey(caller);
    return this.listing.forbidPrincipals.some((principal) => principal === undefined || principal === key);
  }

  /**
   * Parses `text` (and validates it against `schemaText` when given). A file that does not parse
   * or does not validate is `config_invalid`, naming the file and the position.
   */
  static async load(text: string, file: string, schemaText?: string): Promise<CedarPolicies> {
    const cedar = await cedarModule();
    const parts = cedar.policySetTextToParts(text);
    if (parts.type === 'failure') throw cedarInvalid(file, text, parts.errors);
    // Each policy under its `@id("…")` when it has one, so denials and `policy test` name it.
    const policies: Record<string, string> = {};
    for (const [index, policy] of parts.policies.entries()) {
      const id = /@id\(\s*"((?:[^"\\]|\\.)*)"\s*\)/.exec(policy)?.[1] ?? `policy${index}`;
      policies[Object.hasOwn(policies, id) ? `${id}#${index}` : id] = policy;
    }
    if (schemaText !== undefined) {
      const schema = cedar.checkParseSchema(schemaText);
      if (schema.type === 'failure') throw cedarInvalid(`${file} schema`, schemaText, schema.errors);
      const validated = cedar.validate({ schema: schemaText, policies: { staticPolicies: policies } });
      if (validated.type === 'failure') throw cedarInvalid(file, text, validated.errors);
      if (validated.validationErrors.length > 0) {
        const first = validated.validationErrors[0];
        throw new GatewayError(
          'config_invalid',
          `policies.cedar: ${file}: policy "${first?.policyId}" does not validate against the schema: ${first?.error.message}`,
          { details: { path: 'policies.cedar' } },
        );
      }
    }
    setCounter += 1;
    const setId = `aperture-policies-${setCounter}`;
    const preparsed = cedar.preparsePolicySet(setId, { staticPolicies: policies });
    if (preparsed.type === 'failure') throw cedarInvalid(file, text, preparsed.errors);
    return new CedarPolicies(cedar, setId, file, listingShortcut(cedar, Object.values(policies)));
  }

  /** Cedar's decision for one request. */
  authorize(request: CedarRequest): CedarDecision {
    const principal = { type: 'Caller', id: callerKey(request.caller) };
    const resource = { type: 'Tool', id: request.tool.id };
    const context: Record<string, CedarValueJson> = {
      surface: request.surface,
      now: (request.now ?? new Date()).getTime(),
    };
    if (request.args !== undefined) context.args = cedarValue(request.args) ?? {};
    const answer = this.cedar.statefulIsAuthorized({
      principal,
      action: { type: 'Action', id: request.action },
      resource,
      context,
      preparsedPolicySetId: this.setId,
      entities: [callerEntity(request.caller, principal), toolEntity(request.tool, resource)],
    });
    if (answer.type === 'failure') {
      // A request Cedar cannot even evaluate denies (fail closed).
      return { allowed: false, policies: [], errors: answer.errors.map((e) => e.message) };
    }
    const { decision, diagnostics } = answer.response;
    return {
      allowed: decision === 'allow',
      policies: diagnostics.reason,
      errors: diagnostics.errors.map((e) => `${e.policyId}: ${e.error.message}`),
    };
  }
}

/** What decides `list_tool` without Cedar: the principals of the forbids that may concern listing. */
interface ListingShortcut {
  /** One per such forbid: the caller key it names, or undefined when it may concern anyone. */
  forbidPrincipals: (string | undefined)[];
}

type Constraint = { op: string; entity?: unknown; entities?: unknown[] };

/**
 * The listing shortcut of a policy set, or undefined when it has no unconditional permit-all of
 * listing (then Cedar is always asked). Conservative: a constraint it does not understand counts
 * as one that may apply.
 */
function listingShortcut(cedar: CedarModule, policies: readonly string[]): ListingShortcut | undefined {
  let permitsAll = false;
  const forbidPrincipals: (string | undefined)[] = [];
  for (const policy of policies) {
    const parsed = cedar.policyToJson(policy);
    if (parsed.type !== 'success') return undefined;
    const json = parsed.json as unknown as {
      effect: string;
      principal: Constraint;
      action: Constraint;
      resource: Constraint;
      conditions: unknown[];
    };
    const listing = mayBeListing(json.action);
    if (json.effect === 'permit') {
      if (
        listing &&
        json.principal.op === 'All' &&
        json.resource.op === 'All' &&
        json.conditions.length === 0
      ) {
        permitsAll = true;
      }
    } else if (listing) {
      forbidPrincipals.push(json.principal.op === '==' ? callerOfUid(json.principal.entity) : undefined);
    }
  }
  return permitsAll ? { forbidPrincipals } : undefined;
}

/** Whether an action constraint may admit `Action::"list_tool"`. */
function mayBeListing(action: Constraint): boolean {
  if (action.op === 'All') return true;
  if (action.op === '==') return actionId(action.entity) !== 'call_tool';
  if (action.op === 'in' && Array.isArray(action.entities)) {
    return action.entities.some((entity) => actionId(entity) !== 'call_tool');
  }
  return true;
}

function uidOf(entity: unknown): { type?: unknown; id?: unknown } | undefined {
  if (typeof entity !== 'object' || entity === null) return undefined;
  const inner = (entity as { __entity?: unknown }).__entity ?? entity;
  return typeof inner === 'object' && inner !== null
    ? (inner as { type?: unknown; id?: unknown })
    : undefined;
}

/** The id of an `Action::"…"` uid; undefined for anything else (which then may be listing). */
function actionId(entity: unknown): string | undefined {
  const uid = uidOf(entity);
  return uid?.type === 'Action' && typeof uid.id === 'string' ? uid.id : undefined;
}

/** The caller key of a `Caller::"…"` uid; undefined (anyone) for anything else. */
function callerOfUid(entity: unknown): string | undefined {
  const uid = uidOf(entity);
  return uid?.type === 'Caller' && typeof uid.id === 'string' ? uid.id : undefined;
}

function callerEntity(caller: CallerContext, uid: { type: string; id: string }): EntityJson {
  return {
    uid,
    attrs: {
      identity: caller.identity,
      method: caller.authMethod ?? 'none',
      admin: caller.admin === true,
      confined: caller.toolsets !== undefined,
      toolsets: [...(caller.toolsets ?? [])],
      claims: cedarValue(caller.claims ?? {}) ?? {},
    },
    parents: [],
  };
}

function toolEntity(tool: Tool, uid: { type: string; id: string }): EntityJson {
  return {
    uid,
    attrs: {
      namespace: tool.namespace,
      name: tool.name,
      tags: [...tool.tags],
      annotations: cedarValue(tool.annotations) ?? {},
      metadata: cedarValue(tool.metadata) ?? {},
    },
    parents: [],
  };
}

/** Keys Cedar's JSON reads as escapes (an entity, an extension call): never taken from a caller's data. */
const ESCAPE_KEYS = new Set(['__entity', '__extn', '__expr']);

/**
 * A JSON value as a Cedar value. Cedar has no null and no fractions: nulls are left out, numbers
 * that are not safe integers become their decimal text, and keys Cedar would read as escapes are
 * dropped (so arguments cannot forge an entity reference).
 */
export function cedarValue(value: unknown): CedarValueJson | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : String(value);
  if (typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    const list: CedarValueJson[] = [];
    for (const item of value) {
      const converted = cedarValue(item);
      if (converted !== undefined) list.push(converted);
    }
    return list;
  }
  if (typeof value === 'object') {
    const record: Record<string, CedarValueJson> = {};
    for (const [key, item] of Object.entries(value)) {
      if (ESCAPE_KEYS.has(key)) continue;
      const converted = cedarValue(item);
      if (converted !== undefined) record[key] = converted;
    }
    return record;
  }
  return undefined;
}

function cedarInvalid(
  file: string,
  text: string,
  errors: readonly { message: string; sourceLocations?: { start: number }[] }[],
): GatewayError {
  const first = errors[0];
  const offset = first?.sourceLocations?.[0]?.start;
  let where = '';
  if (offset !== undefined) {
    const before = text.slice(0, offset).split('\n');
    where = ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  }
  return new GatewayError(
    'config_invalid',
    `policies.cedar: ${file} does not parse${where}: ${first?.message ?? 'unknown error'}`,
    { details: { path: 'policies.cedar', file } },
  );
}
