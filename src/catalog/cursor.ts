import { createHash } from 'node:crypto';
import { GatewayError } from '../foundation/model/gateway-error.js';

/** What a cursor carries: where the next page starts, for which listing, at which catalog version. */
interface CursorState {
  /** Offset of the next page. */
  o: number;
  /** Catalog version the listing was made at. */
  v: number;
  /** Hash of the listing's parameters (query, filters, scope). */
  k: string;
}

/** A short digest of a listing's parameters, so a cursor cannot be replayed on another listing. */
export function listingKey(params: unknown): string {
  return createHash('sha256').update(JSON.stringify(params)).digest('base64url').slice(0, 12);
}

/** Makes an opaque cursor for the page starting at `offset`. */
export function encodeCursor(offset: number, version: number, key: string): string {
  const state: CursorState = { o: offset, v: version, k: key };
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/**
 * Reads a cursor back. Throws `invalid_request` when it is malformed, belongs to another listing,
 * or was made before the catalog changed (the caller must restart the listing).
 */
export function decodeCursor(cursor: string, version: number, key: string): number {
  let state: Partial<CursorState>;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorState>;
  } catch {
    throw invalid('The cursor is malformed', 'malformed');
  }
  if (typeof state !== 'object' || state === null || !Number.isInteger(state.o) || (state.o as number) < 0) {
    throw invalid('The cursor is malformed', 'malformed');
  }
  if (state.k !== key) throw invalid('The cursor belongs to another listing', 'mismatch');
  if (state.v !== version) {
    throw invalid('The catalog changed since this cursor was made; start the listing again', 'expired');
  }
  return state.o as number;
}

function invalid(message: string, reason: string): GatewayError {
  return new GatewayError('invalid_request', message, { details: { reason, field: 'cursor' } });
}
