import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { CedarPolicies } from './cedar-policies.js';
import { PolicyEngine } from './policy-engine.js';
import type { PolicyRuleDefinition } from './policy-types.js';

const alice: CallerContext = { identity: 'alice', authMethod: 'api_key' };
const bob: CallerContext = { identity: 'bob', authMethod: 'api_key' };
const write = makeTool('demo:repo_write');
const read = makeTool('demo:repo_read', { annotations: { readOnlyHint: true } });

const ACME: PolicyRuleDefinition[] = [
  { name: 'acme-only', effect: 'allow', tools: ['demo:repo_write'], when: 'args.repo.startsWith("acme/")' },
  { name: 'no-other-repos', effect: 'deny', tools: ['demo:repo_write'], reason: 'only acme repositories' },
];

const decide = (engine: PolicyEngine, args: Record<string, unknown>, caller = alice, tool = write) =>
  engine.decide({ tool, args, caller, surface: 'mcp' });

describe('PolicyEngine', () => {
  it('allows everything without rules (configs without policies behave as before)', () => {
    const engine = new PolicyEngine();
    expect(engine.active).toBe(false);
    expect(decide(engine, {})).toEqual({ effect: 'allow', engine: 'default' });
    expect(engine.hides(write, alice)).toBe(false);
  });

  it('lets the first matching rule decide, in order', () => {
    const engine = new PolicyEngine({ rules: ACME });
    expect(decide(engine, { repo: 'acme/site' })).toMatchObject({ effect: 'allow', rule: 'acme-only' });
    expect(decide(engine, { repo: 'evil/site' })).toMatchObject({
      effect: 'deny',
      rule: 'no-other-repos',
      reason: 'only acme repositories',
    });
    // Rules of other tools do not apply.
    expect(decide(engine, {}, alice, read)).toEqual({ effect: 'allow', engine: 'default' });
  });

  it('denies a call whose rule fails at run time, and says why', () => {
    const engine = new PolicyEngine({ rules: ACME });
    // `args.repo` is missing: the expression throws; the rule set fails closed.
    expect(decide(engine, {})).toMatchObject({
      effect: 'deny',
      rule: 'acme-only',
      error: expect.stringContaining('repo'),
    });
  });

  it('hides a tool only when a rule denies it to the caller for every argument', () => {
    const engine = new PolicyEngine({
      rules: [
        {
          name: 'bob-no-write',
          effect: 'deny',
          tools: ['demo:repo_write'],
          when: 'caller.identity == "bob"',
        },
        ...ACME,
      ],
    });
    expect(engine.hides(write, bob)).toBe(true);
    // For alice the allow rule names args: some calls may pass, so the tool stays listed.
    expect(engine.hides(write, alice)).toBe(false);
    expect(engine.hides(read, bob)).toBe(false);
  });

  it('passes over an argument-dependent deny when deciding visibility, down to the rule that decides', () => {
    const engine = new PolicyEngine({
      rules: [
        { name: 'big', effect: 'deny', when: 'args.size > 10' },
        { name: 'everyone-else', effect: 'deny', when: 'caller.identity == "bob"' },
      ],
    });
    expect(engine.hides(write, bob)).toBe(true);
    expect(engine.hides(write, alice)).toBe(false);
  });

  it('hides nothing with hideDenied: false, yet still denies', () => {
    const engine = new PolicyEngine({ rules: [{ name: 'no', effect: 'deny' }], hideDenied: false });
    expect(engine.hides(write, alice)).toBe(false);
    expect(decide(engine, {})).toMatchObject({ effect: 'deny', rule: 'no' });
  });

  it('asks before tools not known to be harmless with the cautious preset, after the rules', () => {
    const engine = new PolicyEngine({ preset: 'cautious' });
    expect(decide(engine, {})).toMatchObject({ effect: 'approve', rule: 'preset:cautious' });
    expect(decide(engine, {}, alice, read)).toEqual({ effect: 'allow', engine: 'default' });
    const safe = makeTool('demo:append', { annotations: { destructiveHint: false } });
    expect(decide(engine, {}, alice, safe).effect).toBe('allow');
    const ruled = new PolicyEngine({
      preset: 'cautious',
      rules: [{ name: 'ok', effect: 'allow', tools: ['demo:*'] }],
    });
    expect(decide(ruled, {}).effect).toBe('allow');
  });

  it('lets a Cedar deny win over a CEL allow, and hides what Cedar forbids listing', async () => {
    const cedar = await CedarPolicies.load(
      `permit(principal, action, resource);
       @id("no-bob-list")
       forbid(principal == Caller::"apikey:bob", action == Action::"list_tool", resource == Tool::"demo:repo_write");
       @id("acme-only")
       forbid(principal, action == Action::"call_tool", resource == Tool::"demo:repo_write")
         unless { context.args has repo && context.args.repo like "acme/*" };`,
      'test.cedar',
    );
    const engine = new PolicyEngine({ rules: [{ name: 'all', effect: 'allow' }], cedar });
    expect(decide(engine, { repo: 'acme/x' })).toMatchObject({ effect: 'allow', rule: 'all' });
    expect(decide(engine, { repo: 'evil/x' })).toMatchObject({
      effect: 'deny',
      engine: 'cedar',
      rule: 'acme-only',
    });
    expect(engine.hides(write, bob)).toBe(true);
    expect(engine.hides(write, alice)).toBe(false);
  });
});

describe('CedarPolicies.listingNeedsCedar', () => {
  it('asks Cedar about listing only when a forbid may concern this caller and listing', async () => {
    const cedar = await CedarPolicies.load(
      `permit(principal, action, resource);
       forbid(principal == Caller::"apikey:bob", action, resource == Tool::"demo:secret");
       forbid(principal, action == Action::"call_tool", resource) when { context.args has x };`,
      'f.cedar',
    );
    expect(cedar.listingNeedsCedar(bob)).toBe(true);
    expect(cedar.listingNeedsCedar(alice)).toBe(false);
    const anyone = await CedarPolicies.load(
      'permit(principal, action, resource);\nforbid(principal, action in [Action::"list_tool"], resource);',
      'g.cedar',
    );
    expect(anyone.listingNeedsCedar(alice)).toBe(true);
    // Without an unconditional permit of everything, Cedar is always asked.
    const narrow = await CedarPolicies.load(
      'permit(principal, action == Action::"call_tool", resource);',
      'h.cedar',
    );
    expect(narrow.listingNeedsCedar(alice)).toBe(true);
    expect(new PolicyEngine({ cedar: narrow }).hides(write, alice)).toBe(true);
  });
});

describe('PolicyEngine.hidesCall', () => {
  const skillGet = makeTool('docs:skills/get');
  const rules: PolicyRuleDefinition[] = [
    {
      name: 'no-pdf-for-bob',
      effect: 'deny',
      tools: ['docs:skills/get'],
      when: 'args.name == "pdf" && caller.identity == "bob"',
    },
  ];
  const call = (name: string, caller: CallerContext, tool = skillGet) => ({
    tool,
    args: { name },
    caller,
    surface: 'mcp' as const,
  });

  it('hides exactly the call a rule denies, its arguments known, where hides() cannot', () => {
    const engine = new PolicyEngine({ rules });
    // The rule names `args`: no tool-level verdict, the tool stays visible…
    expect(engine.hides(skillGet, bob)).toBe(false);
    // …but the very call with `{ name: "pdf" }` of bob is denied, hence hidden.
    expect(engine.hidesCall(call('pdf', bob))).toBe(true);
    expect(engine.hidesCall(call('csv', bob))).toBe(false);
    expect(engine.hidesCall(call('pdf', alice))).toBe(false);
    // Another server's skill of the same name is another tool id.
    expect(engine.hidesCall(call('pdf', bob, makeTool('other:skills/get')))).toBe(false);
  });

  it('hides a call whose tool the rules hide for every argument', () => {
    const engine = new PolicyEngine({ rules: [{ name: 'no-docs', effect: 'deny', tools: ['docs:*'] }] });
    expect(engine.hidesCall(call('anything', alice))).toBe(true);
  });

  it('hides nothing with hideDenied false or without rules; an approve rule does not hide', () => {
    expect(new PolicyEngine({ rules, hideDenied: false }).hidesCall(call('pdf', bob))).toBe(false);
    expect(new PolicyEngine().hidesCall(call('pdf', bob))).toBe(false);
    const approve = new PolicyEngine({
      rules: [{ name: 'ask', effect: 'approve', tools: ['docs:skills/get'], when: 'args.name == "pdf"' }],
    });
    expect(approve.hidesCall(call('pdf', bob))).toBe(false);
  });
});

describe('CedarPolicies.load', () => {
  it('refuses a file that does not parse as config_invalid, naming the file and position', async () => {
    await expect(CedarPolicies.load('permit(principal, action, resource', 'bad.cedar')).rejects.toMatchObject(
      {
        code: 'config_invalid',
        message: expect.stringMatching(/bad\.cedar does not parse at line 1, column \d+/),
      },
    );
  });

  it('denies when nothing permits (Cedar decides as Cedar does)', async () => {
    const cedar = await CedarPolicies.load('forbid(principal, action, resource) when { false };', 'f.cedar');
    expect(
      cedar.authorize({ action: 'call_tool', caller: alice, tool: write, surface: 'mcp', args: {} }),
    ).toMatchObject({
      allowed: false,
    });
  });

  it('keeps arguments from forging entity references', async () => {
    const cedar = await CedarPolicies.load(
      'permit(principal, action, resource) when { context.args has x && context.args.x == "y" };',
      'f.cedar',
    );
    const args = { x: 'y', z: { __entity: { type: 'Caller', id: 'admin' } }, n: 1.5, none: null };
    expect(
      cedar.authorize({ action: 'call_tool', caller: alice, tool: write, surface: 'mcp', args }).allowed,
    ).toBe(true);
  });
});
