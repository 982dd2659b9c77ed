// biome-ignore-all lint/suspicious/noTemplateCurlyInString: chain arguments hold ${{ … }} templates on purpose.
import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { type ChainStep, runChain } from '../execution/chain-runner.js';
import { RunPipeline } from '../execution/run-pipeline.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { compileChainArgs } from './chain-templates.js';

function pipeline() {
  const catalog = new Catalog();
  catalog.replaceSource('s', [
    makeEntry(makeTool('t:user', { inputSchema: { type: 'object' } }), async (_t, a) => ({
      user: { id: a.id, name: 'Ann', tags: ['x', 'y'] },
    })),
    makeEntry(makeTool('t:echo', { inputSchema: { type: 'object' } }), async (_t, a) => ({ got: a })),
    makeEntry(makeTool('t:fail', { inputSchema: { type: 'object' } }), async () => {
      throw new Error('nope');
    }),
  ]);
  return new RunPipeline({ catalog, validator: new SchemaValidator() });
}

async function chain(steps: ChainStep[]) {
  return runChain(pipeline(), {
    caller: { identity: 't' },
    maxSteps: 10,
    steps,
    resolveArgs: compileChainArgs(steps),
  });
}

function failure(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('chains that pass data', () => {
  it('passes fields by step id and by $prev, keeps types, records a continued failure', async () => {
    const outcome = await chain([
      { id: 'who', tool_id: 't:user', args: { id: 7 } },
      { tool_id: 't:fail', on_error: 'continue' },
      {
        tool_id: 't:echo',
        args: { id: '${{ steps.who.result.user.id }}', note: 'hi ${{ steps.who.result.user.name }}' },
      },
      { tool_id: 't:echo', args: { again: '$prev.got.id', tag: '${{ steps.who.result.user.tags[1] }}' } },
    ]);
    expect(outcome.steps[1]).toEqual({
      tool_id: 't:fail',
      error: { code: 'execution_failed', message: 'nope' },
    });
    expect(outcome.steps[2]?.result).toEqual({ got: { id: 7, note: 'hi Ann' } });
    expect(outcome.result).toEqual({ got: { again: 7, tag: 'y' } });
  });

  it('a step reading a failed step fails in turn (stop: the chain fails)', async () => {
    const run = chain([
      { id: 'bad', tool_id: 't:fail', on_error: 'continue' },
      { tool_id: 't:echo', args: { x: '${{ steps.bad.result.x }}' } },
    ]);
    await expect(run).rejects.toMatchObject({ code: 'chain_step_failed', details: { step: 1 } });
  });

  it('checks references before any step runs, naming the step and the pointer', () => {
    const later = failure(() =>
      compileChainArgs([
        { tool_id: 't:echo', args: { a: '${{ steps.next.result }}' } },
        { id: 'next', tool_id: 't:echo' },
      ]),
    );
    expect(later.code).toBe('validation_input');
    expect(later.message).toContain('/steps/0/args/a');
    expect(
      failure(() => compileChainArgs([{ tool_id: 't:echo', args: { a: '$prev.x' } }])).message,
    ).toContain('no previous step');
    expect(
      failure(() => compileChainArgs([{ tool_id: 't:echo', args: { a: '${{ inputs.x }}' } }])).message,
    ).toContain('no inputs');
    expect(
      failure(() =>
        compileChainArgs([
          { id: 'a', tool_id: 't:echo' },
          { id: 'a', tool_id: 't:echo' },
        ]),
      ).message,
    ).toContain('used twice');
    expect(failure(() => compileChainArgs([{ tool_id: 't:echo', args: { a: '${{ steps.' } }])).code).toBe(
      'validation_input',
    );
  });
});
