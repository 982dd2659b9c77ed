import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { InputRounds, type RoundState } from './input-rounds.js';
import { inMemoryRelayHub } from './shared/in-memory-session-relay.js';
import { inMemoryRoundKey } from './shared/round-key.js';
import { RoundRelay } from './shared/round-relay.js';

const ELICITATION = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/** What the SDK hands a handler of one 2026-07-28 request, as far as input rounds read it. */
function request(
  rounds: InputRounds,
  options: {
    id?: number;
    state?: string;
    inputResponses?: Record<string, unknown>;
    signal?: AbortSignal;
  } = {},
): Promise<ServerContext> {
  const context = {
    mcpReq: {
      id: options.id ?? 1,
      method: 'tools/call',
      signal: options.signal ?? new AbortController().signal,
      envelope: ELICITATION,
      inputResponses: options.inputResponses,
      notify: async () => {},
      requestState: () => verified,
    },
  } as unknown as ServerContext;
  let verified: RoundState | undefined;
  if (options.state === undefined) return Promise.resolve(context);
  return rounds.verify(options.state, context).then((state) => {
    verified = state;
    return context;
  });
}

/** A call that asks its client once, then answers with what it was told; it records its abort. */
function askingCall(aborted: string[]) {
  return async ({ channel }: { channel: ClientChannel }, signal: AbortSignal) => {
    signal.addEventListener('abort', () => aborted.push(String(signal.reason?.message)));
    const answer = await channel.request('elicitation/create', { message: 'Proceed?' }, signal);
    return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }] };
  };
}

describe('InputRounds', () => {
  it("passes a server's own round on with its state wrapped, and gives the state back only for the same caller and request", async () => {
    const rounds = new InputRounds();
    const context = await request(rounds);
    const wrapped = await rounds.passOn(context, 'alice', 'prompts/get:greet', {
      resultType: 'input_required',
      inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who?' } } as never },
      requestState: 'server-state',
    });
    expect(wrapped.inputRequests).toHaveProperty('who');
    expect(wrapped.requestState).not.toContain('server-state');

    const retry = await request(rounds, {
      state: wrapped.requestState,
      inputResponses: { who: { action: 'decline' } },
    });
    expect(rounds.directRounds(retry, 'alice', 'prompts/get:greet')).toEqual({
      inputResponses: { who: { action: 'decline' } },
      requestState: 'server-state',
    });
    expect(() => rounds.directRounds(retry, 'mallory', 'prompts/get:greet')).toThrow(/another request/);
    expect(() => rounds.directRounds(retry, 'alice', 'prompts/get:other')).toThrow(/another request/);
    await expect(request(rounds, { state: `${wrapped.requestState}x` })).rejects.toThrow();
  });

  it("ends a waiting call on the client's cancellation of the request that got the ask, and only that one", async () => {
    const rounds = new InputRounds();
    const aborted: string[] = [];
    const first = await rounds.start(await request(rounds, { id: 7 }), 'alice', askingCall(aborted));
    expect(first).toMatchObject({ resultType: 'input_required' });
    expect(rounds.cancel('alice', 8)).toBe(false);
    expect(rounds.cancel('bob', 7)).toBe(false);
    expect(aborted).toEqual([]);
    expect(rounds.cancel('alice', 7)).toBe(true);
    expect(aborted).toEqual(['the client cancelled the call']);
  });

  it('refuses a cancellation two waiting calls could be meant by', async () => {
    const rounds = new InputRounds();
    const aborted: string[] = [];
    await rounds.start(await request(rounds, { id: 3 }), 'anonymous', askingCall(aborted));
    await rounds.start(await request(rounds, { id: 3 }), 'anonymous', askingCall(aborted));
    expect(rounds.cancel('anonymous', 3)).toBe(false);
    expect(aborted).toEqual([]);
  });

  it('ends the call when the request of its round is dropped', async () => {
    const rounds = new InputRounds();
    const aborted: string[] = [];
    const dropped = new AbortController();
    const context = await request(rounds, { signal: dropped.signal });
    // A call that takes its time before asking: the round is still running when the client leaves.
    const answer = rounds.start(context, 'alice', async (_channels, signal) => {
      signal.addEventListener('abort', () => aborted.push(String(signal.reason?.message)));
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { content: [{ type: 'text' as const, text: 'stopped' }] };
    });
    dropped.abort();
    await expect(answer).resolves.toMatchObject({ content: [{ text: 'stopped' }] });
    expect(aborted).toEqual(['the client cancelled the call']);
  });

  it('at shutdown ends the calls waiting on a client, and counts them', async () => {
    const rounds = new InputRounds();
    const aborted: string[] = [];
    await rounds.start(await request(rounds, { id: 1 }), 'alice', askingCall(aborted));
    await rounds.start(await request(rounds, { id: 2 }), 'bob', askingCall(aborted));
    expect(rounds.endWaiting()).toBe(2);
    expect(aborted).toEqual(['the gateway is shutting down', 'the gateway is shutting down']);
  });

  it('resumes a waiting call with the answer to its ask', async () => {
    const rounds = new InputRounds();
    const first = (await rounds.start(await request(rounds), 'alice', askingCall([]))) as {
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    const [key] = Object.keys(first.inputRequests);
    const retry = await request(rounds, {
      state: first.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
    });
    const state = retry.mcpReq.requestState<RoundState>();
    if (!state || !('call' in state)) throw new Error('expected the state of a kept call');
    const done = await rounds.resume(retry, 'alice', state);
    expect(done).toMatchObject({ content: [{ text: '{"action":"accept","content":{"ok":true}}' }] });
    expect(rounds.size).toBe(0);
  });
  it('refuses the state of a kept call on a request naming another tool, and the call goes on', async () => {
    const rounds = new InputRounds();
    const first = (await rounds.start(
      await request(rounds),
      'alice',
      askingCall([]),
      'tools/call:ask',
      {},
    )) as {
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    const retry = await request(rounds, { state: first.requestState });
    const state = retry.mcpReq.requestState<RoundState>();
    if (!state || !('call' in state)) throw new Error('expected the state of a kept call');
    await expect(
      rounds.resume(retry, 'alice', state, { target: 'tools/call:wipe', args: {} }),
    ).rejects.toThrow(/issued for tools\/call:ask, not tools\/call:wipe/);
    expect(rounds.size).toBe(1);
    rounds.close();
  });
});

describe('InputRounds on replicas', () => {
  /** Two gateways sharing a key store and a relay hub, as two replicas share Redis. */
  async function replicas() {
    const keyStore = inMemoryRoundKey();
    const hub = inMemoryRelayHub();
    const [a, b] = ['a', 'b'].map(
      (name) =>
        new InputRounds({ keyStore, relay: new RoundRelay({ relay: hub.relay(name), log: silentLogger }) }),
    ) as [InputRounds, InputRounds];
    await Promise.all([a.listen(), b.listen()]);
    return { a, b };
  }

  /** What the session server does with a verified state: resume a kept call, with the request re-sent. */
  async function answer(
    rounds: InputRounds,
    round: { requestState: string; inputRequests: Record<string, unknown> },
    options: { owner?: string; target?: string; args?: unknown; signal?: AbortSignal } = {},
  ) {
    const [key] = Object.keys(round.inputRequests);
    const retry = await request(rounds, {
      state: round.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const state = retry.mcpReq.requestState<RoundState>();
    if (!state || !('call' in state)) throw new Error('expected the state of a kept call');
    return rounds.resume(retry, options.owner ?? 'alice', state, {
      target: options.target ?? 'tools/call:ask',
      args: options.args ?? { n: 1 },
    });
  }

  it('resumes on one replica a call another keeps, and gives its result there', async () => {
    const { a, b } = await replicas();
    const first = await a.start(await request(a), 'alice', askingCall([]), 'tools/call:ask', { n: 1 });
    expect(first).toMatchObject({ resultType: 'input_required' });
    const done = await answer(b, first as never);
    expect(done).toMatchObject({ content: [{ text: '{"action":"accept","content":{"ok":true}}' }] });
    expect(a.size).toBe(0);
  });

  it('refuses a state replayed on another tool, with other arguments or by another caller, and the call goes on', async () => {
    const { a, b } = await replicas();
    const first = (await a.start(await request(a), 'alice', askingCall([]), 'tools/call:ask', {
      n: 1,
    })) as never;
    await expect(answer(b, first, { target: 'tools/call:delete_all' })).rejects.toThrow(
      /issued for tools\/call:ask, not tools\/call:delete_all/,
    );
    await expect(answer(a, first, { args: { n: 2 } })).rejects.toThrow(/with other arguments/);
    await expect(answer(b, first, { owner: 'mallory' })).rejects.toThrow(/another caller/);
    expect(a.size).toBe(1);
    await expect(answer(b, first)).resolves.toMatchObject({ content: [{ type: 'text' }] });
  });

  it('ends the kept call when the client drops the request answered on another replica', async () => {
    const { a, b } = await replicas();
    const aborted: string[] = [];
    const first = (await a.start(
      await request(a),
      'alice',
      async ({ channel }, signal) => {
        signal.addEventListener('abort', () => aborted.push(String(signal.reason?.message)));
        await channel.request('elicitation/create', { message: 'Proceed?' }, signal);
        // The answer arrived; the call takes its time, and the client leaves meanwhile.
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        return { content: [] };
      },
      'tools/call:ask',
      { n: 1 },
    )) as never;
    const dropped = new AbortController();
    const resumed = answer(b, first, { signal: dropped.signal });
    // Leaves once the keeper runs the round (the relay is asynchronous, like Redis).
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toEqual([]);
    dropped.abort(new Error('gone'));
    await expect(resumed).rejects.toThrow('gone');
    await vi.waitFor(() => expect(aborted).toEqual(['the client cancelled the call']));
  });

  it('signs with its own key while the key store is away, and still verifies those states once it agreed', async () => {
    const shared = inMemoryRoundKey();
    let away = true;
    const keyStore = {
      agree: (proposal: Uint8Array) =>
        away ? Promise.reject(new Error('redis is away')) : shared.agree(proposal),
    };
    // The other replica agreed first: its key is the shared one.
    const other = new InputRounds({ keyStore: shared });
    await other.ready();
    const rounds = new InputRounds({ keyStore });
    await rounds.ready();
    const own = (await rounds.start(
      await request(rounds),
      'alice',
      askingCall([]),
      'tools/call:ask',
      {},
    )) as {
      requestState: string;
    };
    away = false;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // A state the other replica signed: this one reads the shared key and adopts it.
    const theirs = (await other.start(
      await request(other),
      'alice',
      askingCall([]),
      'tools/call:ask',
      {},
    )) as {
      requestState: string;
    };
    await expect(request(rounds, { state: theirs.requestState })).resolves.toBeDefined();
    // Its own earlier state is still good here.
    await expect(request(rounds, { state: own.requestState })).resolves.toBeDefined();
    rounds.close();
    other.close();
  });

  it('fails a round whose keeper is gone as a call that is over', async () => {
    const keyStore = inMemoryRoundKey();
    const hub = inMemoryRelayHub();
    const a = new InputRounds({
      keyStore,
      relay: new RoundRelay({ relay: hub.relay('a'), log: silentLogger }),
    });
    const b = new InputRounds({
      keyStore,
      relay: new RoundRelay({ relay: hub.relay('b'), log: silentLogger, aliveMs: 20 }),
    });
    await b.listen();
    // `a` never listens: it is a replica that went away with its call.
    const first = (await a.start(await request(a), 'alice', askingCall([]), 'tools/call:ask', {
      n: 1,
    })) as never;
    await expect(answer(b, first)).rejects.toThrow(/over or unknown/);
  });
});
