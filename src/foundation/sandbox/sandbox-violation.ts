/*
 * Bubblewrap reports no violations itself: a refused write is an EROFS error inside the server, a
 * refused connection a network error. A sandboxed server's stderr is read for those signs, and
 * each kind is logged once per process, with what would grant it — the commonest reason a server
 * that worked unconfined stops working in the sandbox.
 */

/** A kind of refusal seen in a sandboxed server's stderr, with the config key that would grant it. */
export interface SandboxViolation {
  kind: 'filesystem' | 'network';
  hint: string;
}

const SIGNS: readonly [RegExp, SandboxViolation][] = [
  [
    /\bEROFS\b|read-only file system/i,
    {
      kind: 'filesystem',
      hint: 'a write outside its writable paths was refused; grant it with sandbox.filesystem.write',
    },
  ],
  [
    /\bENETUNREACH\b|\bEAI_AGAIN\b|network is unreachable|temporary failure in name resolution/i,
    {
      kind: 'network',
      hint: 'it has no network of its own; allow hosts with sandbox.network.allow, or network: open',
    },
  ],
];

/** The violation a stderr line shows, if any. */
export function sandboxViolationOf(line: string): SandboxViolation | undefined {
  for (const [pattern, violation] of SIGNS) if (pattern.test(line)) return violation;
  return undefined;
}
