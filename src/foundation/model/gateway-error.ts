import { type GatewayErrorCode, isGatewayErrorCode } from './error-codes.js';
import { ERROR_CODE_TABLE } from './error-tables.js';

/**
 * What a caller can do about an error, told by each surface in its own terms (`errorForSurface`
 * in error-hints.ts). Declared here, with the error that carries it, so that error-hints.ts
 * depends on this file and not the other way round.
 */
export type ErrorHint = 'find_tool' | 'find_toolset';

/** Options of the {@link GatewayError} constructor; each may be given as `undefined`, meaning none. */
export interface GatewayErrorOptions {
  /** Overrides the code's default retryability. */
  retryable?: boolean | undefined;
  /** Machine-readable context (failing path, step index, retry delay…). Must be JSON-serialisable. */
  details?: Record<string, unknown> | undefined;
  /** The tool the error concerns, when there is one. */
  toolId?: string | undefined;
  cause?: unknown | undefined;
  /**
   * What the caller can do about it, which each surface words in its own terms when it presents
   * the error (`errorForSurface`); never part of the message itself.
   */
  hint?: ErrorHint | undefined;
}

/**
 * The fields {@link GatewayError.with} can change. A key that is present replaces the field, even
 * when its value is `undefined` (`{ hint: undefined }` drops the hint; `{ retryable: undefined }`
 * goes back to the code's default); an absent key keeps the field as it is.
 */
export interface GatewayErrorChanges extends GatewayErrorOptions {
  code?: GatewayErrorCode;
  message?: string;
}

/** The JSON shape of an error on the wire (`{ error: … }` in results and REST bodies). */
export interface GatewayErrorJson {
  code: GatewayErrorCode;
  message: string;
  tool_id?: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/**
 * The one error class of Aperture. Every failure that crosses a layer boundary is a GatewayError
 * with a code from the closed set; anything else is normalised by `toGatewayError`.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: GatewayErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  readonly toolId: string | undefined;
  readonly hint: ErrorHint | undefined;

  constructor(code: GatewayErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODE_TABLE[code].retryable;
    this.details = options.details;
    this.toolId = options.toolId;
    this.hint = options.hint;
  }

  /**
   * A new error derived from this one: every field kept — `retryable`, `details`, `toolId`, `cause`,
   * `hint` — except those `changes` names (see {@link GatewayErrorChanges}). The one way to derive
   * an error: rebuilding one field by field is how retryability, causes and hints got lost.
   *
   * `retryable` is kept only while the code stays the same: a retry flag set for one code says
   * nothing about another, so a new code without an explicit `retryable` gets that code's default.
   */
  with(changes: GatewayErrorChanges): GatewayError {
    const code = changes.code ?? this.code;
    return new GatewayError(code, changes.message ?? this.message, {
      retryable: 'retryable' in changes ? changes.retryable : code === this.code ? this.retryable : undefined,
      details: 'details' in changes ? changes.details : this.details,
      toolId: 'toolId' in changes ? changes.toolId : this.toolId,
      cause: 'cause' in changes ? changes.cause : this.cause,
      hint: 'hint' in changes ? changes.hint : this.hint,
    });
  }

  /** A copy that names `toolId` (errors raised deep inside do not know which tool they serve). */
  withToolId(toolId: string): GatewayError {
    return this.toolId === toolId ? this : this.with({ toolId });
  }

  toJSON(): GatewayErrorJson {
    const json: GatewayErrorJson = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.toolId !== undefined) json.tool_id = this.toolId;
    if (this.details !== undefined) json.details = this.details;
    return json;
  }
}

/**
 * Normalises anything thrown into a GatewayError. Unknown throws become `fallback` (by default
 * `internal`): a bare Error from a backend or a bug must never be reported as the caller's fault.
 */
export function toGatewayError(error: unknown, fallback: GatewayErrorCode = 'internal'): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isAbortError(error)) return new GatewayError('cancelled', 'The call was cancelled', { cause: error });
  // A structurally identical error from another copy of this package (e.g. a tool module bundling it).
  const foreignCode = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  if (error instanceof Error && isGatewayErrorCode(foreignCode)) {
    const code: GatewayErrorCode = foreignCode;
    return new GatewayError(code, error.message, { cause: error });
  }
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : safeString(error);
  return new GatewayError(fallback, message || 'Unknown error', { cause: error });
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
