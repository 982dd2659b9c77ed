import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ActionGate } from '../../../execution/action-gate.js';
import { PolicyEnforcement } from '../../../execution/policy/policy-enforcement.js';
import { PolicyEngine } from '../../../execution/policy/policy-engine.js';
import type { ClientChannel } from '../../../foundation/ports/client-channel.js';
import type { RunCall } from '../../../foundation/ports/run-middleware.js';
import type { SessionChannel } from '../session-channel.js';
import { skillGate } from './skill-gate.js';

const docs = { target: { namespace: 'docs', sourceId: 'mcp:docs' }, name: 'pdf' };
const callChannel = { key: 'call' } as unknown as ClientChannel;
const session = { forCall: () => callChannel } as unknown as SessionChannel;
const request = {
  sessionId: 's-1',
  mcpReq: { signal: new AbortController().signal },
} as unknown as ServerContext;

function gateWith(rules: ConstructorParameters<typeof PolicyEngine>[0], seen: RunCall[] = []) {
  const policy = new PolicyEnforcement({ engine: new PolicyEngine(rules) });
  return new ActionGate({
    middlewares: [
      async (call, next) => {
        seen.push(call);
        return next();
      },
    ],
    policy,
  });
}

describe('skillGate', () => {
  it('runs a skill as `<namespace>:skills/get` with `{ name }`, the caller’s session and channel', async () => {
    const seen: RunCall[] = [];
    const gate = skillGate(gateWith({}, seen), { identity: 'ka', authMethod: 'api_key' }, session);
    await expect(gate.run(docs, request, async () => 'done')).resolves.toBe('done');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.tool.id).toBe('docs:skills/get');
    expect(seen[0]?.args).toEqual({ name: 'pdf' });
    expect(seen[0]?.ctx.caller).toMatchObject({ identity: 'ka', surface: 'mcp', sessionId: 's-1' });
    expect(seen[0]?.ctx.channel).toBe(callChannel);
    // Without policies nothing is hidden, and listings ask nothing.
    expect(gate.mayHide()).toBe(false);
  });

  it('hides and refuses by caller: the rule’s caller only, the named skill only', async () => {
    const rules = {
      rules: [
        {
          name: 'no-pdf-for-ka',
          effect: 'deny' as const,
          tools: ['docs:skills/get'],
          when: 'caller.identity == "ka" && args.name == "pdf"',
        },
      ],
    };
    const ka = skillGate(gateWith(rules), { identity: 'ka', authMethod: 'api_key' }, session);
    const kb = skillGate(gateWith(rules), { identity: 'kb', authMethod: 'api_key' }, session);
    expect(ka.mayHide()).toBe(true);
    expect(ka.hides(docs)).toBe(true);
    expect(ka.hides({ ...docs, name: 'csv' })).toBe(false);
    expect(kb.hides(docs)).toBe(false);
    await expect(ka.run(docs, request, async () => 'leaked')).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Denied by policy "no-pdf-for-ka"',
    });
    await expect(kb.run(docs, undefined, async () => 'ok')).resolves.toBe('ok');
    // hideDenied off: listed, yet refused when asked for.
    const shown = skillGate(gateWith({ ...rules, hideDenied: false }), { identity: 'ka' }, session);
    expect(shown.hides(docs)).toBe(false);
    await expect(shown.run(docs, request, async () => 'leaked')).rejects.toMatchObject({ code: 'forbidden' });
  });
});
