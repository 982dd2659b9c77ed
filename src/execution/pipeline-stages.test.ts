import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import type { GatewayErrorCode } from '../foundation/model/error-codes.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import type { RunMiddleware } from '../foundation/ports/run-middleware.js';
import type { ToolBackend } from '../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { PIPELINE_STAGES, STAGE_ERROR_CODES } from './pipeline-stages.js';
import type { PolicyCheck } from './policy/policy-enforcement.js';
import { type Authorizer, RunPipeline, type RunRequest } from './run-pipeline.js';

const caller = { identity: 'test' };
const never = () => new Promise<never>(() => {});

interface Scenario {
  /** The stage the call must fail in (a plain string: the walk checks it against the list). */
  stage: string;
  code: GatewayErrorCode;
  what: string;
  execute?: ToolBackend['execute'];
  tool?: Partial<Tool>;
  request?: Partial<RunRequest>;
  middlewares?: RunMiddleware[];
  authorizer?: (catalog: Catalog) => Authorizer;
  /** The policy rules' check (a held call's answer, as the approval gate gives it). */
  policy?: PolicyCheck;
  maxResultBytes?: number;
  /** A catalog gate (trust) that withholds the tool. */
  withheld?: boolean;
}

const refuse = (code: GatewayErrorCode): Authorizer => ({
  authorize() {
    throw new GatewayError(code, 'no');
  },
});
const throwing =
  (code: GatewayErrorCode): RunMiddleware =>
  () => {
    throw new GatewayError(code, 'no');
  };
const abortedSignal = () => AbortSignal.abort();
/** Policy rules holding the call for approval, answered with `code` (denied, nobody in time, cancelled). */
const heldAndAnswered = (code: GatewayErrorCode): PolicyCheck => ({
  hides: () => false,
  authorize: async () => {
    throw new GatewayError(code, 'no');
  },
});

/**
 * One failing call per (stage, code) the pipeline can produce. Written as data, in pipeline
 * order, so that the walk below can check the stage list against what the pipeline really does.
 */
const SCENARIOS: Scenario[] = [
  { stage: 'parse_id', code: 'tool_not_found', what: 'a malformed id', request: { toolId: 'garbage' } },
  { stage: 'resolve', code: 'tool_not_found', what: 'an unknown id', request: { toolId: 'm:zzz' } },
  {
    stage: 'resolve',
    code: 'tool_not_found',
    what: 'a tool out of scope',
    request: { isVisible: () => false },
  },
  { stage: 'resolve', code: 'tool_quarantined', what: 'a quarantined tool', withheld: true },
  {
    stage: 'authorize',
    code: 'unauthorized',
    what: 'no credentials',
    authorizer: () => refuse('unauthorized'),
  },
  { stage: 'authorize', code: 'forbidden', what: 'no right', authorizer: () => refuse('forbidden') },
  {
    stage: 'authorize',
    code: 'approval_denied',
    what: 'a held call declined',
    policy: heldAndAnswered('approval_denied'),
  },
  {
    stage: 'authorize',
    code: 'approval_timeout',
    what: 'a held call nobody answered',
    policy: heldAndAnswered('approval_timeout'),
  },
  {
    stage: 'authorize',
    code: 'cancelled',
    what: 'a held call cancelled while it waited',
    policy: heldAndAnswered('cancelled'),
  },
  { stage: 'validate_input', code: 'validation_input', what: 'an array as args', request: { args: [1] } },
  {
    stage: 'validate_input',
    code: 'validation_input',
    what: 'args against the schema',
    tool: { inputSchema: { type: 'object', required: ['n'] } },
  },
  {
    stage: 'select_backend',
    code: 'backend_unavailable',
    what: 'the tool removed while being called',
    authorizer: (catalog) => ({
      authorize: () => void catalog.replaceSource('s', []),
    }),
  },
  {
    stage: 'middlewares',
    code: 'rate_limited',
    what: 'a rate limit',
    middlewares: [throwing('rate_limited')],
  },
  {
    stage: 'middlewares',
    code: 'backend_unavailable',
    what: 'an open circuit',
    middlewares: [throwing('backend_unavailable')],
  },
  {
    stage: 'middlewares',
    code: 'internal',
    what: 'a middleware bug',
    middlewares: [
      () => {
        throw new TypeError('oops');
      },
    ],
  },
  {
    stage: 'middlewares',
    code: 'timeout',
    what: 'a middleware that never settles',
    middlewares: [never],
    request: { timeoutMs: 20 },
  },
  { stage: 'middlewares', code: 'cancelled', what: 'a call cancelled before it starts', request: {} },
  {
    stage: 'middlewares',
    code: 'internal',
    what: 'a middleware failing after the tool succeeded',
    middlewares: [
      async (_call, next) => {
        await next();
        throw new Error('post-processing bug');
      },
    ],
  },
  {
    stage: 'execute',
    code: 'execution_failed',
    what: 'a backend throwing',
    execute: async () => {
      throw new Error('boom');
    },
  },
  {
    stage: 'execute',
    code: 'backend_unavailable',
    what: 'a backend down',
    execute: async () => {
      throw new GatewayError('backend_unavailable', 'down');
    },
  },
  {
    stage: 'execute',
    code: 'auth_required',
    what: 'a downstream server that needs a login (OAuth)',
    execute: async () => {
      throw new GatewayError('auth_required', 'log in');
    },
  },
  {
    stage: 'execute',
    code: 'internal',
    what: 'a backend reporting a gateway bug',
    execute: async () => {
      throw new GatewayError('internal', 'bug');
    },
  },
  {
    stage: 'execute',
    code: 'timeout',
    what: 'a backend that never answers',
    execute: never,
    request: { timeoutMs: 20 },
  },
  { stage: 'execute', code: 'cancelled', what: 'a call cancelled while running', execute: never },
  {
    stage: 'normalize',
    code: 'execution_failed',
    what: 'an isError result',
    execute: async () => ({ isError: true, content: [{ type: 'text', text: 'bad' }] }),
  },
  {
    stage: 'normalize',
    code: 'payload_too_large',
    what: 'a result over the limit',
    execute: async () => 'x'.repeat(200),
    maxResultBytes: 100,
  },
  {
    stage: 'validate_output',
    code: 'validation_output',
    what: 'no structured result',
    execute: async () => 'text',
    tool: { outputSchema: { type: 'object' } },
  },
  {
    stage: 'validate_output',
    code: 'validation_output',
    what: 'a result off its schema',
    execute: async () => ({ n: 'x' }),
    tool: { outputSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
  },
];

async function runScenario(scenario: Scenario): Promise<GatewayError> {
  const catalog = new Catalog(
    scenario.withheld
      ? { gate: { check: () => ({ reason: 'changed', message: 'quarantined', details: {} }) } }
      : {},
  );
  catalog.replaceSource('s', [
    makeEntry(makeTool('m:t', scenario.tool), scenario.execute ?? (async () => 'ok')),
  ]);
  const pipeline = new RunPipeline({
    catalog,
    validator: new SchemaValidator(),
    ...(scenario.middlewares ? { middlewares: scenario.middlewares } : {}),
    ...(scenario.authorizer ? { authorizer: scenario.authorizer(catalog) } : {}),
    ...(scenario.policy ? { policy: scenario.policy } : {}),
    ...(scenario.maxResultBytes ? { maxResultBytes: scenario.maxResultBytes } : {}),
  });
  const request: RunRequest = { toolId: 'm:t', args: {}, caller, ...scenario.request };
  if (scenario.code === 'cancelled') {
    if (scenario.stage === 'execute') {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20);
      request.signal = controller.signal;
    } else {
      request.signal = abortedSignal();
    }
  }
  try {
    await pipeline.run(request);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`${scenario.what}: the call succeeded`);
}

describe('pipeline stages', () => {
  it.each(SCENARIOS)('$stage fails $what with $code, stamped with its stage', async (scenario) => {
    const error = await runScenario(scenario);
    expect({ code: error.code, stage: error.details?.stage }).toEqual({
      code: scenario.code,
      stage: scenario.stage,
    });
  });

  // The walk (like fastify validating hook names against its own list): every stage the pipeline
  // stamps is on the list, every stage on the list is reached, in the list's order, and each
  // stage's documented codes are exactly the codes it was seen to produce.
  it('walks the stage list against the pipeline', async () => {
    const seen: { stage: string; code: GatewayErrorCode }[] = [];
    for (const scenario of SCENARIOS) {
      const error = await runScenario(scenario);
      seen.push({ stage: String(error.details?.stage), code: error.code });
    }
    const listed: readonly string[] = PIPELINE_STAGES;
    const unlisted = seen.filter((s) => !listed.includes(s.stage)).map((s) => s.stage);
    expect(unlisted, 'stages the pipeline stamps but the list lacks').toEqual([]);
    const reached = [...new Set(seen.map((s) => s.stage))];
    expect(reached, 'stages reached, in order').toEqual([...PIPELINE_STAGES]);
    for (const stage of PIPELINE_STAGES) {
      const produced = [...new Set(seen.filter((s) => s.stage === stage).map((s) => s.code))].sort();
      expect(produced, `codes of ${stage}`).toEqual([...STAGE_ERROR_CODES[stage]].sort());
    }
  });

  it('stamps the stage on errors from resolve() used on its own', () => {
    const catalog = new Catalog();
    const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
    expect(() => pipeline.resolve('garbage')).toThrow(
      expect.objectContaining({ details: { reason: 'malformed_id', stage: 'parse_id' } }),
    );
    expect(() => pipeline.resolve('m:zzz')).toThrow(
      expect.objectContaining({ details: { stage: 'resolve' } }),
    );
  });
});
