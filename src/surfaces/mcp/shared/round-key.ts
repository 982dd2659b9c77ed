/**
 * Where the replicas agree on the HMAC key of input rounds' request states, so that a state one
 * replica signed verifies on every other. The first proposal stored wins, atomically; every
 * later one gets the stored key back.
 */
export interface RoundKeyStore {
  /** The shared key: `proposal` when none is stored yet (it is stored then), else the stored one. */
  agree(proposal: Uint8Array): Promise<Uint8Array>;
}

/** A {@link RoundKeyStore} in memory: replicas in one process (tests), the reference implementation. */
export function inMemoryRoundKey(): RoundKeyStore {
  let stored: Uint8Array | undefined;
  return {
    async agree(proposal) {
      stored ??= Uint8Array.from(proposal);
      return Uint8Array.from(stored);
    },
  };
}
