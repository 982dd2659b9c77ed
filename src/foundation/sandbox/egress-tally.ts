/*
 * Egress decisions counted for `sandbox_egress_total{server,host,decision}`. The proxies that
 * decide live in the sources layer and the metrics in operations, which do not import each other;
 * both import this (one count per process, like the package cache's per-folder instances).
 */

/** One counted series. */
export interface EgressCount {
  server: string;
  host: string;
  decision: 'allowed' | 'refused';
  count: number;
}

const counts = new Map<string, EgressCount>();

/** Counts one decision. */
export function recordEgress(server: string, host: string, decision: 'allowed' | 'refused'): void {
  const key = JSON.stringify([server, host, decision]);
  const found = counts.get(key);
  if (found) found.count++;
  else counts.set(key, { server, host, decision, count: 1 });
}

/** Every series counted since the process started. */
export function egressCounts(): readonly EgressCount[] {
  return [...counts.values()].map((count) => ({ ...count }));
}
