import { describe, expect, it } from 'vitest';
import { carryingTaskAnswer, TASK_HANDLE_META_KEY, taskHandleOf } from './downstream-tasks.js';

const task = {
  taskId: 't-1',
  status: 'working',
  createdAt: '2026-07-28T00:00:00Z',
  lastUpdatedAt: '2026-07-28T00:00:00Z',
  ttlMs: 60_000,
};

describe('carryingTaskAnswer', () => {
  it('carries a task answer as a complete, empty result with the task in _meta', () => {
    const message = {
      jsonrpc: '2.0',
      id: 3,
      result: { resultType: 'task', content: [], ...task, _meta: { 'x/y': 1 } },
    };
    const carried = carryingTaskAnswer(message);
    expect(carried.result).toEqual({
      resultType: 'complete',
      content: [],
      _meta: { 'x/y': 1, [TASK_HANDLE_META_KEY]: task },
    });
    expect(taskHandleOf(carried.result)).toEqual(task);
  });

  it('leaves every other message as it is', () => {
    const complete = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [] } };
    const notification = {
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { resultType: 'task', ...task },
    };
    const noId = { jsonrpc: '2.0', id: 2, result: { resultType: 'task' } };
    expect(carryingTaskAnswer(complete)).toBe(complete);
    expect(carryingTaskAnswer(notification)).toBe(notification);
    // Without a task id there is nothing to route: the SDK refuses it as it would.
    expect(carryingTaskAnswer(noId)).toBe(noId);
    expect(taskHandleOf(complete.result)).toBeUndefined();
    expect(
      taskHandleOf({ content: [], _meta: { [TASK_HANDLE_META_KEY]: { status: 'working' } } }),
    ).toBeUndefined();
  });
});
