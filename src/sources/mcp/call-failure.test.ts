import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { callFailure, isSessionLost } from './call-failure.js';

const live = new AbortController().signal;
const context = { server: 'srv', signal: live, incident: () => 'mcp:srv#3' };

describe('callFailure', () => {
  it('a connection that closed mid-call is backend_unavailable carrying that connection’s incident', () => {
    const failure = callFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), context);
    expect(failure).toMatchObject({
      code: 'backend_unavailable',
      message: 'server "srv" closed the connection during the call',
      details: { server: 'srv', incident: 'mcp:srv#3' },
    });
  });

  it('the SDK’s request timeout is timeout', () => {
    const failure = callFailure(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), context);
    expect(failure).toMatchObject({ code: 'timeout', message: 'server "srv" did not answer in time' });
  });

  it('an error the server answered is execution_failed with its JSON-RPC code, without the SDK prefix', () => {
    const failure = callFailure(new ProtocolError(-32602, 'Unknown tool: nope'), context);
    expect(failure).toMatchObject({
      code: 'execution_failed',
      message: 'server "srv": Unknown tool: nope',
      details: { server: 'srv', rpcCode: -32602 },
    });
  });

  it('a transport failure (a plain error) is backend_unavailable naming the server, the error as cause', () => {
    const cause = new Error('fetch failed');
    const failure = callFailure(cause, context);
    expect(failure).toMatchObject({ code: 'backend_unavailable', message: 'server "srv": fetch failed' });
    expect(failure.cause).toBe(cause);
  });

  it('a GatewayError passes unchanged; an aborted call fails for the abort’s reason, whatever the error', () => {
    const own = new GatewayError('payload_too_large', 'too big');
    expect(callFailure(own, context)).toBe(own);
    const controller = new AbortController();
    const reason = new GatewayError('timeout', 'the call took over 100 ms');
    controller.abort(reason);
    const failure = callFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), {
      ...context,
      signal: controller.signal,
    });
    expect(failure).toBe(reason);
  });
});

describe('isSessionLost', () => {
  it('is a 404 or a "session not found" message, nothing else', () => {
    expect(isSessionLost(Object.assign(new Error('Not Found'), { code: 404 }))).toBe(true);
    expect(isSessionLost(new Error('Error POSTing to endpoint: Session not found'))).toBe(true);
    expect(isSessionLost(Object.assign(new Error('Bad Request'), { code: 400 }))).toBe(false);
    expect(isSessionLost(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'))).toBe(false);
  });
});
