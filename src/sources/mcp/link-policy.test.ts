import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { ClientChannel, RelayCapabilities } from '../../foundation/ports/client-channel.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { LinkPolicy, NO_CHANNEL } from './link-policy.js';
import type { InFlightCall } from './session-links.js';

function channel(key: string, capabilities: RelayCapabilities, answers: unknown[] = []): ClientChannel {
  const self: ClientChannel = {
    key,
    get session() {
      return self;
    },
    capabilities: () => capabilities,
    request: async (method) => {
      answers.push(method);
      return { answeredBy: key };
    },
    notify: async () => {},
    onClose: () => {},
  };
  return self;
}

function setup(open: Set<string> = new Set(), max = 8) {
  const links = {
    has: (session: ClientChannel) => open.has(session.key),
    available: (session: ClientChannel) => open.has(session.key) || open.size < max,
  };
  return new LinkPolicy(links, silentLogger, { server: 's' });
}

const signal = new AbortController().signal;

describe('LinkPolicy', () => {
  it('never gives a link to a client that cannot answer server requests', () => {
    expect(setup().wantsLink(channel('a', {}), 'echo')).toBe(false);
  });

  it('gives a capable client a link for a tool not seen yet, and not once it was seen quiet', () => {
    const policy = setup();
    const sampler = channel('a', { sampling: {} });
    expect(policy.wantsLink(sampler, 'echo')).toBe(true);
    const call: InFlightCall = { channel: sampler, tool: 'echo', asked: false };
    policy.finished(call);
    expect(policy.wantsLink(channel('b', { sampling: {} }), 'echo')).toBe(false);
    // Requests that are not tool calls (resources, prompts) share unless the session has a link.
    expect(policy.wantsLink(channel('c', { sampling: {} }), undefined)).toBe(false);
  });

  it('a tool seen asking keeps needing links, even after quiet calls', () => {
    const policy = setup();
    const sampler = channel('a', { sampling: {} });
    const call: InFlightCall = { channel: sampler, tool: 'sample', asked: false };
    policy.asked('sampling/createMessage', [call]);
    policy.finished(call);
    policy.finished({ channel: sampler, tool: 'sample', asked: false });
    expect(policy.wantsLink(channel('b', { sampling: {} }), 'sample')).toBe(true);
  });

  it('roots-capable clients need links for every tool once the server asked for roots', () => {
    const policy = setup();
    policy.finished({ channel: NO_CHANNEL, tool: 'echo', asked: false });
    expect(policy.wantsLink(channel('a', { roots: {} }), 'echo')).toBe(false);
    policy.asked('roots/list', []);
    expect(policy.wantsLink(channel('b', { roots: {} }), 'echo')).toBe(true);
    expect(policy.wantsLink(channel('c', { sampling: {} }), 'echo')).toBe(false);
  });

  it('past the cap, a session shares the connection; a session with a link keeps it', () => {
    const policy = setup(new Set(['a', 'b']), 2);
    expect(policy.wantsLink(channel('c', { sampling: {} }), 'x')).toBe(false);
    expect(policy.wantsLink(channel('a', { sampling: {} }), 'x')).toBe(true);
  });

  it('relays a request on the shared connection to the only call in flight, if its client can answer', async () => {
    const policy = setup();
    const answers: unknown[] = [];
    const sampler = channel('a', { sampling: {} }, answers);
    const call: InFlightCall = { channel: sampler, tool: 'sample', asked: false };
    const answer = await policy.onShared(call, () =>
      policy.relayShared('sampling/createMessage', {}, signal),
    );
    expect(answer).toEqual({ answeredBy: 'a' });
    expect(call.asked).toBe(true);
    // The client declared sampling, not elicitation.
    await expect(
      policy.onShared({ channel: sampler, asked: false }, () =>
        policy.relayShared('elicitation/create', {}, signal),
      ),
    ).rejects.toBeInstanceOf(ProtocolError);
  });

  it('refuses a request on the shared connection when two calls are in flight (it could be either one’s)', async () => {
    const policy = setup();
    const aAnswers: unknown[] = [];
    const bAnswers: unknown[] = [];
    const a: InFlightCall = {
      channel: channel('a', { sampling: {} }, aAnswers),
      tool: 'sample',
      asked: false,
    };
    const b: InFlightCall = {
      channel: channel('b', { sampling: {} }, bAnswers),
      tool: 'other',
      asked: false,
    };
    let release: () => void = () => {};
    const holding = policy.onShared(a, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(
      policy.onShared(b, () => policy.relayShared('sampling/createMessage', {}, signal)),
    ).rejects.toBeInstanceOf(ProtocolError);
    release();
    await holding;
    expect(aAnswers).toEqual([]);
    expect(bAnswers).toEqual([]);
    // Both tools are now known to (possibly) ask: their next calls from capable clients get links.
    expect(policy.wantsLink(channel('c', { sampling: {} }), 'sample')).toBe(true);
    expect(policy.wantsLink(channel('d', { sampling: {} }), 'other')).toBe(true);
  });
});
