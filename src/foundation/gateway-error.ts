import { type GatewayErrorCode, isGatewayErrorCode } from './error-codes.js';
import type { ErrorHint } from './error-hints.js';
import { ERROR_CODE_TABLE } from './error-tables.js';

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

  /** A copy that names `toolId` (errors raised deep inside do not know which tool they serve). */
  withToolId(toolId: string): GatewayError {
    if (this.toolId === toolId) return this;
    return new GatewayError(this.code, this.message, {
      retryable: this.retryable,
      details: this.details,
      toolId,
      cause: this.cause,
      ...(this.hint !== undefined ? { hint: this.hint } : {}),
    });
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
