import type { Client } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { AgentSkillBackend } from './agent-skill-backend.js';

function backendFailingWith(error: unknown): AgentSkillBackend {
  const client = {
    sendMessage: async () => {
      throw error;
    },
  } as unknown as Client;
  return new AgentSkillBackend({
    agent: 'helper',
    client,
    streaming: false,
    timeoutMs: 5000,
    log: silentLogger,
  });
}

const ctx = {
  signal: new AbortController().signal,
  callId: 'call-1',
  caller: { identity: 'test' },
  progress: () => {},
  log: silentLogger,
};

describe('AgentSkillBackend errors', () => {
  it("names the agent in a GatewayError from its client and keeps the error's retryability, hint and cause", async () => {
    const cause = new Error('ECONNRESET');
    // backend_unavailable is retryable by default: the client said this one is not.
    const thrown = new GatewayError('backend_unavailable', 'address refused', {
      retryable: false,
      details: { host: 'agent.test' },
      hint: 'find_tool',
      cause,
    });
    const error = await backendFailingWith(thrown)
      .execute(makeTool('helper:skill'), {}, ctx)
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      code: 'backend_unavailable',
      message: 'A2A agent "helper": address refused',
      retryable: false,
      hint: 'find_tool',
      details: { agent: 'helper', host: 'agent.test' },
    });
    expect((error as GatewayError).cause).toBe(thrown);
  });
});
