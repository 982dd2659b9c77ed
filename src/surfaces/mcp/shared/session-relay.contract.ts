import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { SessionRelay } from './session-relay.js';

const answer: JSONRPCMessage = { jsonrpc: '2.0', id: 7, result: { action: 'accept', content: { ok: true } } };

/** Resolves once `done()` holds; rejects after 5 s. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 5000) throw new Error('nothing relayed');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * What every {@link SessionRelay} must do. `ends()` gives three fresh ends of one relay (three
 * replicas); the test closes them.
 */
export function describeSessionRelayContract(
  name: string,
  ends: () =>
    | Promise<[SessionRelay, SessionRelay, SessionRelay]>
    | [SessionRelay, SessionRelay, SessionRelay],
): void {
  describe(`SessionRelay contract: ${name}`, () => {
    it('hands a message to the replica it is addressed to, with its session, and to no other', async () => {
      const [a, b, c] = await ends();
      expect(new Set([a.replica, b.replica, c.replica]).size).toBe(3);
      const atB: unknown[] = [];
      const others: unknown[] = [];
      await b.listen((session, message) => atB.push([session, message]));
      await a.listen((session, message) => others.push([session, message]));
      await c.listen((session, message) => others.push([session, message]));
      await a.send(b.replica, 'session-1', answer);
      await c.send(b.replica, 'session-2', answer);
      await until(() => atB.length === 2);
      expect(atB).toContainEqual(['session-1', answer]);
      expect(atB).toContainEqual(['session-2', answer]);
      expect(others).toEqual([]);
      await Promise.all([a.close(), b.close(), c.close()]);
    });

    it('drops a message for a replica nobody is listening as, without failing', async () => {
      const [a, b, c] = await ends();
      await expect(a.send('gone-replica', 'session-1', answer)).resolves.toBeUndefined();
      await Promise.all([a.close(), b.close(), c.close()]);
    });

    it('stops delivering once closed', async () => {
      const [a, b, c] = await ends();
      const atB: unknown[] = [];
      const atC: unknown[] = [];
      await b.listen((...message) => atB.push(message));
      await c.listen((...message) => atC.push(message));
      await b.close();
      await a.send(b.replica, 'session-1', answer);
      // C's message was sent after B's: once it is in, B's would have been too.
      await a.send(c.replica, 'session-1', answer);
      await until(() => atC.length === 1);
      expect(atB).toEqual([]);
      await Promise.all([a.close(), c.close()]);
    });
  });
}
