import { describe, expect, it } from 'vitest';
import { compileRule, RuleCompileError } from './cel-rule.js';

const input = (args: Record<string, unknown>) => ({
  caller: { identity: 'alice' },
  tool: { id: 'demo:repo_write' },
  args,
  surface: 'mcp',
  now: new Date(),
});

describe('compileRule', () => {
  it('compiles a rule over args and evaluates it', () => {
    const rule = compileRule({ name: 'acme', effect: 'allow', when: 'args.repo.startsWith("acme/")' });
    expect(rule.when?.(input({ repo: 'acme/x' }))).toBe(true);
    expect(rule.when?.(input({ repo: 'other/x' }))).toBe(false);
    expect(rule.perCall).toBe(true);
  });

  it('knows a rule that reads only the caller and the tool decides for every call', () => {
    expect(compileRule({ name: 'r', effect: 'deny', when: 'caller.identity == "bob"' }).perCall).toBe(false);
    expect(compileRule({ name: 'r', effect: 'deny', when: 'surface == "code"' }).perCall).toBe(true);
    expect(
      compileRule({ name: 'r', effect: 'deny', when: 'now > timestamp("2020-01-01T00:00:00Z")' }).perCall,
    ).toBe(true);
  });

  it('refuses a rule that does not parse, naming the rule, line and column', () => {
    const error = (() => {
      try {
        compileRule({ name: 'broken', effect: 'deny', when: 'args.repo.startsWith(' });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(RuleCompileError);
    expect(error).toMatchObject({ rule: 'broken', line: 1, column: 22 });
    expect(String((error as Error).message)).toContain('rule "broken"');
  });

  it('refuses an unknown variable at its position, on the line it is on', () => {
    expect(() =>
      compileRule({ name: 'typo', effect: 'deny', when: 'caller.admin &&\n  arg.repo == "x"' }),
    ).toThrow(
      expect.objectContaining({ rule: 'typo', line: 2, column: 3, summary: expect.stringContaining('arg') }),
    );
  });

  it('refuses an expression that cannot be a boolean', () => {
    expect(() => compileRule({ name: 'n', effect: 'deny', when: '1 + 2' })).toThrow(/must be a boolean/);
  });

  it('matches its tools by id and glob', () => {
    const rule = compileRule({ name: 'g', effect: 'deny', tools: ['github:*', 'demo:x'] });
    expect([
      rule.matchesTool('github:delete_repo'),
      rule.matchesTool('demo:x'),
      rule.matchesTool('demo:y'),
    ]).toEqual([true, true, false]);
    expect(compileRule({ name: 'all', effect: 'deny' }).matchesTool('any:tool')).toBe(true);
  });

  it('skips a rule whose identity or tool test fails without evaluating it, and only then', () => {
    const rule = compileRule({
      name: 'r',
      effect: 'deny',
      when: 'args.n > 1 && caller.identity == "bob" && "demo" == tool.namespace && surface == "rest"',
    });
    const base = {
      caller: { identity: 'bob' },
      tool: { namespace: 'demo' },
      args: {},
      surface: 'rest',
      now: new Date(),
    };
    expect(rule.mayMatch(base)).toBe(true);
    expect(rule.mayMatch({ ...base, caller: { identity: 'alice' } })).toBe(false);
    expect(rule.mayMatch({ ...base, tool: { namespace: 'other' } })).toBe(false);
    expect(rule.mayMatch({ ...base, surface: 'mcp' })).toBe(false);
    // Under || the test is no guard: the rule may match whatever the identity.
    const either = compileRule({ name: 'e', effect: 'deny', when: 'caller.identity == "bob" || args.n > 1' });
    expect(either.mayMatch({ ...base, caller: { identity: 'alice' } })).toBe(true);
  });
});
