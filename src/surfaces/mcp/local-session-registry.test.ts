import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { LocalSessionRegistry } from './local-session-registry.js';
import { describeSessionRegistryContract } from './session-registry.contract.js';

describeSessionRegistryContract('LocalSessionRegistry', (host) => new LocalSessionRegistry(host));

describe('LocalSessionRegistry', () => {
  it('records nothing: a session the host does not hold is unknown, whoever opened it', async () => {
    const registry = new LocalSessionRegistry({ held: () => undefined, log: silentLogger });
    expect(await registry.opened()).toBeUndefined();
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'elicitation/create', params: {} };
    // A single process names nobody on its requests: the answer can only come back here.
    expect(registry.outgoing(request)).toBe(request);
  });
});
