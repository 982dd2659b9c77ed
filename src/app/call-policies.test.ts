import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { configSchema } from '../config/config-schema.js';
import type { ToolResult } from '../foundation/tool.js';
import type { ExecutionContext } from '../foundation/tool-backend.js';
import { createLogger } from '../operations/create-logger.js';
import { callPolicies } from './call-policies.js';

const log = createLogger({ level: 'silent' });

function config(perUser: boolean) {
  return configSchema.parse({
    auth: {
      apiKeys: [
        { name: 'alice', key: 'a'.repeat(32) },
        { name: 'bob', key: 'b'.repeat(32) },
      ],
    },
    cache: { partition: 'scope' },
    servers: { team: { url: 'http://127.0.0.1:9/mcp', oauth: { perUser } } },
    state: { tokenKey: 'k'.repeat(32) },
  });
}

async function callAs(policies: ReturnType<typeof callPolicies>, identity: string): Promise<ToolResult> {
  const tool = makeTool('team:whoami', { annotations: { readOnlyHint: true } });
  const ctx = {
    caller: { identity, authMethod: 'api_key' },
    signal: new AbortController().signal,
  } as ExecutionContext;
  const [middleware] = policies.middlewares;
  if (!middleware) throw new Error('no cache middleware');
  return middleware({ tool, args: {}, ctx }, async () => ({ content: [{ type: 'text', text: identity }] }));
}

describe('callPolicies', () => {
  it('never serves one user’s cached result to another when a server keeps tokens per user', async () => {
    const policies = callPolicies(config(true), log);
    await callAs(policies, 'alice');
    expect((await callAs(policies, 'bob')).content).toEqual([{ type: 'text', text: 'bob' }]);
  });

  it('keeps the configured scope partition otherwise', async () => {
    const policies = callPolicies(config(false), log);
    await callAs(policies, 'alice');
    expect((await callAs(policies, 'bob')).content).toEqual([{ type: 'text', text: 'alice' }]);
  });
});
