import { isRecord } from '../../foundation/util/is-record.js';

/**
 * `dist.integrity` of an npm version document, or undefined when the package registry cannot be
 * read (an offline install still works; the comment then has no integrity).
 */
export async function npmIntegrity(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    const dist = isRecord(body) ? body.dist : undefined;
    const integrity = isRecord(dist) ? dist.integrity : undefined;
    return typeof integrity === 'string' && /^sha(256|384|512)-[A-Za-z0-9+/=]+$/.test(integrity)
      ? integrity
      : undefined;
  } catch {
    return undefined;
  }
}
