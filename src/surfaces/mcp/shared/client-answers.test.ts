import { describe, expect, it } from 'vitest';
import { routeAnswers, tagRequest } from './client-answers.js';

const elicit = { jsonrpc: '2.0', id: 4, method: 'elicitation/create', params: { message: 'name?' } } as const;
const answer = (id: unknown) => ({ jsonrpc: '2.0', id, result: { action: 'accept' } });

describe('tagRequest', () => {
  it("names the replica in a server request's id, leaving the message itself untouched", () => {
    expect(tagRequest(elicit, 'r1')).toEqual({ ...elicit, id: 'r1~4' });
    expect(elicit.id).toBe(4);
  });

  it('names a cancelled server request as the client knows it', () => {
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 4, reason: 'x' },
    } as const;
    expect(tagRequest(cancel, 'r1')).toEqual({ ...cancel, params: { requestId: 'r1~4', reason: 'x' } });
  });

  it('leaves notifications, answers and requests with string ids alone', () => {
    const notification = { jsonrpc: '2.0', method: 'notifications/message', params: {} } as const;
    expect(tagRequest(notification, 'r1')).toBe(notification);
    const result = answer(3) as never;
    expect(tagRequest(result, 'r1')).toBe(result);
    const named = { ...elicit, id: 'x' } as never;
    expect(tagRequest(named, 'r1')).toBe(named);
  });
});

describe('routeAnswers', () => {
  it('returns a body with no tagged answer as it is', () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect(routeAnswers(body, 'r1')).toEqual({ local: body, elsewhere: [] });
    const notTagged = answer('plain~id');
    expect(routeAnswers(notTagged, 'r1').local).toBe(notTagged);
  });

  it("restores the id of an answer to this replica's own request", () => {
    expect(routeAnswers(answer('r1~4'), 'r1')).toEqual({ local: answer(4), elsewhere: [] });
  });

  it("sends an answer to another replica's request there, leaving nothing here", () => {
    expect(routeAnswers(answer('r2~4'), 'r1')).toEqual({
      local: undefined,
      elsewhere: [{ replica: 'r2', message: answer(4) }],
    });
  });

  it('splits a batch, keeping its other messages here', () => {
    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'x' } };
    const error = { jsonrpc: '2.0', id: 'r3~7', error: { code: -1, message: 'declined' } };
    expect(routeAnswers([call, answer('r1~2'), error], 'r1')).toEqual({
      local: [call, answer(2)],
      elsewhere: [{ replica: 'r3', message: { ...error, id: 7 } }],
    });
  });
});
