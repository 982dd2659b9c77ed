import { createHash } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { canonicalJson } from '../../operations/cache/canonical-json.js';

/**
 * What the request state of a kept call is bound to: the request it was issued for. A client
 * answering the round re-sends that request (the 2026-07-28 revision's retry), so the state is
 * good only on a request naming the same target with the same arguments, from the same caller.
 * Arguments and caller are kept as digests: the state travels through the client in the clear.
 */
export interface RoundBinding {
  /** `tools/call:<name>` (empty for a call started with no target). */
  target: string;
  /** Digest of the request's arguments, their key order aside. */
  args: string;
  /** Digest of the caller (`sessionOwner`). */
  owner: string;
}

/** The binding of a request of `owner` to `target` with `args` (absent arguments count as `{}`). */
export function roundBinding(owner: string, target: string, args: unknown): RoundBinding {
  return { target, args: digest(canonicalJson(args ?? {})), owner: digest(owner) };
}

/**
 * Refuses (-32602) a state issued for another request than `request`, saying which part differs:
 * a state replayed on another tool, with other arguments or by another caller never resumes the
 * call it names.
 */
export function checkBinding(state: RoundBinding, request: RoundBinding): void {
  const issued = state.target || 'another request';
  const wrong =
    state.owner !== request.owner
      ? 'it was issued to another caller'
      : state.target !== request.target
        ? `it was issued for ${issued}, not ${request.target || 'this request'}`
        : state.args !== request.args
          ? `it was issued for ${issued} with other arguments (re-send the request as it was)`
          : undefined;
  if (wrong)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `This request state belongs to another request: ${wrong}`,
    );
}

/** A short digest (128 bits, base64url): enough to tell requests apart, short in the state. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}
