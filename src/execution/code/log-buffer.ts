import { Buffer } from 'node:buffer';
import type { SandboxLog } from './sandbox.js';

/**
 * Collects a program's console output under a byte budget. Output past the budget is truncated,
 * not an error: the result is what the agent asked for, logs are only diagnostics. The entry that
 * crosses the budget is cut to fit, a warning entry says so, and every later line is dropped
 * (the guest stops formatting once `add` returns false, so a flood costs the host nothing).
 * The budget counts UTF-8 bytes of each message plus one per entry (the newline a text rendering
 * adds), so a flood of empty lines is bounded too.
 */
export class LogBuffer {
  readonly entries: SandboxLog[] = [];
  private used = 0;
  private full = false;

  constructor(private readonly maxBytes: number) {}

  /** Adds one line; false once the budget is spent. */
  add(level: SandboxLog['level'], message: string): boolean {
    if (this.full) return false;
    const cost = Buffer.byteLength(message) + 1;
    if (this.used + cost <= this.maxBytes) {
      this.entries.push({ level, message });
      this.used += cost;
      return true;
    }
    const room = this.maxBytes - this.used - 1;
    if (room > 0) this.entries.push({ level, message: truncateUtf8(message, room) });
    this.entries.push({
      level: 'warn',
      message: `[aperture] console output truncated: the program logged more than ${this.maxBytes} bytes`,
    });
    this.full = true;
    return false;
  }
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back off to the start of the character that straddles the cut (continuation bytes are 10xxxxxx).
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
