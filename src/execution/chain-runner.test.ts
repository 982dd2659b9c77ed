import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { mergePrevious, runChain } from './chain-runner.js';
import { RunPipeline } from './run-pipeline.js';

const strict = {
  type: 'object',
  properties: { text: { type: 'string' }, upper: { type: 'boolean' } },
  required: ['text'],
  additionalProperties: false,
};

function pipeline() {
  const catalog = new Catalog();
  catalog.replaceSource('s', [
    makeEntry(makeTool('t:make', { inputSchema: { type: 'object' } }), async () => ({
      text: 'hello',
      count: 3,
      extra: true,
    })),
    makeEntry(makeTool('t:shout', { inputSchema: strict }), async (_t, a) => ({
      text: a.upper ? String(a.text).toUpperCase() : a.text,
    })),
    makeEntry(makeTool('t:fail'), async () => {
      throw new Error('nope');
    }),
    makeEntry(makeTool('t:list_text', { inputSchema: { type: 'object' } }), async () => '[1,2]'),
    makeEntry(makeTool('t:words', { inputSchema: { type: 'object' } }), async () => 'just words'),
  ]);
  return new RunPipeline({ catalog, validator: new SchemaValidator() });
}

const caller = { identity: 'test' };

describe('runChain', () => {
  it('runs steps in order and feeds only declared keys to a strict next tool', async () => {
    const outcome = await runChain(pipeline(), {
      caller,
      maxSteps: 10,
      steps: [{ tool_id: 't:make' }, { tool_id: 't:shout', args: { upper: true }, use_previous: true }],
    });
    expect(outcome.result).toEqual({ text: 'HELLO' });
    expect(outcome.steps.map((s) => s.tool_id)).toEqual(['t:make', 't:shout']);
  });

  it("a step's value is its text parsed as JSON of any type, else the text (as in skills and code mode)", async () => {
    const outcome = await runChain(pipeline(), {
      caller,
      maxSteps: 10,
      steps: [{ tool_id: 't:list_text' }, { tool_id: 't:words' }],
    });
    expect(outcome.steps.map((s) => s.result)).toEqual([[1, 2], 'just words']);
    expect(outcome.result).toBe('just words');
  });

  it('stops at the first failure with chain_step_failed naming the step', async () => {
    let error: unknown;
    try {
      await runChain(pipeline(), {
        caller,
        maxSteps: 10,
        steps: [{ tool_id: 't:make' }, { tool_id: 't:fail' }, { tool_id: 't:make' }],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    const failure = error as GatewayError;
    expect(failure.code).toBe('chain_step_failed');
    expect(failure.details).toMatchObject({
      step: 1,
      tool_id: 't:fail',
      error: { code: 'execution_failed' },
    });
    expect(failure.details!.completed as unknown[]).toHaveLength(1);
  });

  it('reports a step whose arguments are invalid with the underlying validation_input', async () => {
    await expect(
      runChain(pipeline(), { caller, maxSteps: 10, steps: [{ tool_id: 't:shout', args: { nope: 1 } }] }),
    ).rejects.toMatchObject({
      code: 'chain_step_failed',
      details: { step: 0, error: { code: 'validation_input' } },
    });
  });

  it('enforces the step limit and refuses an empty chain', async () => {
    await expect(
      runChain(pipeline(), { caller, maxSteps: 1, steps: [{ tool_id: 't:make' }, { tool_id: 't:make' }] }),
    ).rejects.toMatchObject({ code: 'validation_input' });
    await expect(runChain(pipeline(), { caller, maxSteps: 1, steps: [] })).rejects.toMatchObject({
      code: 'validation_input',
    });
  });

  it('reports progress per step', async () => {
    const seen: string[] = [];
    await runChain(pipeline(), {
      caller,
      maxSteps: 5,
      steps: [{ tool_id: 't:make' }, { tool_id: 't:make' }],
      progress: (u) => seen.push(`${u.progress}/${u.total}`),
    });
    expect(seen).toEqual(['0/2', '1/2', '2/2']);
  });
});

describe('mergePrevious', () => {
  it('adds only declared keys the step did not set', () => {
    expect(mergePrevious(strict, { upper: false }, { text: 'a', upper: true, other: 1 })).toEqual({
      upper: false,
      text: 'a',
    });
  });

  it('adds nothing for non-object values or schemas without properties', () => {
    expect(mergePrevious(strict, {}, 'text')).toEqual({});
    expect(mergePrevious({ type: 'object' }, { a: 1 }, { b: 2 })).toEqual({ a: 1 });
  });
});
