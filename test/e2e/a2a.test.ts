import { type Part, type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPart, sendRequest } from '../support/a2a-messages.js';
import { FIXTURE_CONFIG, type RunningGateway, startHttpGateway } from './gateway-process.js';

/** The A2A surface of the gateway as a user starts it, driven by the A2A SDK's own client. */
describe('A2A surface of `aperture serve`', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
  });
  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
  });

  it('serves an agent card and runs a tool sent as a data part, the same as MCP and REST', async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as {
      name: string;
      skills: unknown[];
    };
    expect(card.name).toBe('aperture-test');
    expect(card.skills.length).toBeGreaterThan(0);

    const client = await new ClientFactory().createFromUrl(gateway.url);
    const send = async (parts: Part[]) => {
      const result = await client.sendMessage(sendRequest(parts));
      if ('messageId' in result) throw new Error('expected a task');
      return result as Task;
    };
    const done = await send([dataPart({ tool_id: 'fixture:add', args: { a: 20, b: 22 } })]);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const values = done.artifacts
      .flatMap((a) => a.parts)
      .flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
    expect(values).toContainEqual({ sum: 42 });

    const rest = await fetch(`${gateway.url}/api/tools/fixture:add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 20, b: 22 }),
    });
    expect(
      ((await rest.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
    ).toEqual({ sum: 42 });

    const failed = await send([dataPart({ tool_id: 'fixture:fail', args: {} })]);
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const error = failed.status?.message?.parts.flatMap((p) =>
      p.content?.$case === 'data' ? [p.content.value] : [],
    )[0] as {
      error: { code: string };
    };
    expect(error.error.code).toBe('execution_failed');
  });
});
