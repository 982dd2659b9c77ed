import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { SandboxLimits } from './sandbox.js';

/**
 * Reasonable limits for a caller that has none of its own (execute_code configures its own).
 * Frozen: copy before changing.
 */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeoutMs: 30_000,
  memoryMb: 64,
  maxToolCalls: 100,
  maxLogBytes: 64 * 1024,
  maxResultBytes: 1024 * 1024,
});

/** Largest memory limit: QuickJS runs in 32-bit WebAssembly (4 GiB address space, 16 MiB baseline). */
const MAX_MEMORY_MB = 4064;

/** Throws `invalid_request` naming the first bad limit. */
export function assertSandboxLimits(limits: SandboxLimits): void {
  const checks: Array<[keyof SandboxLimits, number, number, boolean]> = [
    ['timeoutMs', 1, Number.MAX_SAFE_INTEGER, false],
    ['memoryMb', 1, MAX_MEMORY_MB, false],
    ['maxToolCalls', 0, Number.MAX_SAFE_INTEGER, true],
    ['maxLogBytes', 0, Number.MAX_SAFE_INTEGER, true],
    ['maxResultBytes', 1, Number.MAX_SAFE_INTEGER, true],
  ];
  if (typeof limits !== 'object' || limits === null) {
    throw new GatewayError('invalid_request', 'sandbox limits are missing');
  }
  for (const [key, min, max, integer] of checks) {
    const value = limits[key];
    const ok =
      typeof value === 'number' && value >= min && value <= max && (!integer || Number.isInteger(value));
    if (!ok) {
      throw new GatewayError(
        'invalid_request',
        `sandbox limit ${key} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
        { details: { limit: key } },
      );
    }
  }
}
