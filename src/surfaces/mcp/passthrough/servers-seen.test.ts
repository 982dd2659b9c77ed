import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../foundation/model/tool.js';
import type { PassthroughRelay } from './passthrough-relay.js';
import { serversSeen } from './servers-seen.js';

const tool = (sourceId: string) => ({ origin: { sourceId } }) as Tool;
const server = (name: string) => ({ sourceId: `mcp:${name}`, namespace: name }) as PassthroughRelay;

describe('serversSeen (the confinement rule of passthrough)', () => {
  it('sees the servers with at least one tool in the scope, and no other', () => {
    const scope = { version: 1, tools: () => [tool('mcp:github'), tool('mcp:github'), tool('local:own')] };
    const sees = serversSeen(scope);
    expect(sees(server('github'))).toBe(true);
    expect(sees(server('filesystem'))).toBe(false);
    // A server with no tools at all (prompts only) is seen by unconfined sessions alone.
    expect(sees(server('prompts-only'))).toBe(false);
  });

  it('follows the scope when its version moves (a catalog change, a toolsets reload)', () => {
    let tools = [tool('mcp:github')];
    let listed = 0;
    const scope = {
      version: 1,
      tools: () => {
        listed++;
        return tools;
      },
    };
    const sees = serversSeen(scope);
    expect(sees(server('github'))).toBe(true);
    expect(sees(server('filesystem'))).toBe(false);
    expect(listed).toBe(1);
    tools = [tool('mcp:filesystem')];
    scope.version = 2;
    expect(sees(server('github'))).toBe(false);
    expect(sees(server('filesystem'))).toBe(true);
    expect(listed).toBe(2);
  });
});
