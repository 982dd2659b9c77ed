import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { PolicyEnforcement } from './policy/policy-enforcement.js';
import { PolicyEngine } from './policy/policy-engine.js';
import { RunPipeline } from './run-pipeline.js';

function pipeline(rules: ConstructorParameters<typeof PolicyEngine>[0]) {
  const catalog = new Catalog();
  const ran: unknown[] = [];
  catalog.replaceSource('s', [
    makeEntry(
      makeTool('demo:repo_write', {
        inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
      }),
      async (_tool, args) => {
        ran.push(args);
        return 'done';
      },
    ),
  ]);
  const policy = new PolicyEnforcement({ engine: new PolicyEngine(rules) });
  return { run: new RunPipeline({ catalog, validator: new SchemaValidator(), policy }), ran };
}

const RULES = {
  rules: [
    { name: 'bob-never', effect: 'deny' as const, when: 'caller.identity == "bob"' },
    { name: 'acme', effect: 'deny' as const, when: '!args.repo.startsWith("acme/")' },
  ],
};

describe('the run pipeline with policy rules', () => {
  it('runs an allowed call and refuses a denied one in the authorize stage, before the backend', async () => {
    const { run, ran } = pipeline(RULES);
    await expect(
      run.run({ toolId: 'demo:repo_write', args: { repo: 'acme/x' }, caller: { identity: 'alice' } }),
    ).resolves.toBeDefined();
    await expect(
      run.run({ toolId: 'demo:repo_write', args: { repo: 'evil/x' }, caller: { identity: 'alice' } }),
    ).rejects.toMatchObject({ code: 'forbidden', details: { rule: 'acme', stage: 'authorize' } });
    expect(ran).toEqual([{ repo: 'acme/x' }]);
  });

  it('validates the arguments before any rule sees them', async () => {
    const { run } = pipeline(RULES);
    await expect(
      run.run({ toolId: 'demo:repo_write', args: {}, caller: { identity: 'alice' } }),
    ).rejects.toMatchObject({
      code: 'validation_input',
    });
  });

  it('answers a tool hidden from the caller exactly as an unknown one', async () => {
    const { run, ran } = pipeline(RULES);
    const hidden = await run
      .run({ toolId: 'demo:repo_write', args: { repo: 'acme/x' }, caller: { identity: 'bob' } })
      .catch((error: unknown) => error);
    const unknown = await run
      .run({ toolId: 'demo:nothing', args: {}, caller: { identity: 'bob' } })
      .catch((error: unknown) => error);
    expect(hidden).toMatchObject({ code: 'tool_not_found', message: 'No tool "demo:repo_write"' });
    expect(unknown).toMatchObject({ code: 'tool_not_found', message: 'No tool "demo:nothing"' });
    expect(ran).toEqual([]);
  });
});
