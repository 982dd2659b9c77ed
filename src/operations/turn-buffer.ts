/** The buffers not yet written, flushed when the process exits. */
const unwritten = new Set<TurnBuffer>();
let exitHooked = false;

/**
 * The lines of one event-loop turn, written together after it (`setImmediate`), synchronously.
 * The line a tool call logs is made before its answer is written: writing it at once put a write
 * to stderr (and the wake-up of whoever reads it) ahead of every answer, and one write per call
 * under load. Buffered, the answer goes first and a burst of calls costs one write. Lines are
 * never lost to an exit: what is buffered is written synchronously on `process.exit` and after
 * an uncaught error (both emit `exit`); a SIGKILL loses at most one turn's lines.
 */
export class TurnBuffer {
  private lines: string[] = [];
  private scheduled = false;

  constructor(private readonly target: { write(text: string): unknown }) {
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => {
        for (const buffer of unwritten) buffer.writeOut();
      });
    }
  }

  write(line: string): boolean {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      unwritten.add(this);
      setImmediate(this.writeOut);
    }
    return true;
  }

  /** pino's `logger.flush(cb)`. */
  flush(done?: (error?: Error) => void): void {
    this.writeOut();
    done?.();
  }

  /** pino calls this after a `fatal` line, which must be out before the process ends. */
  flushSync(): void {
    this.writeOut();
  }

  readonly writeOut = (): void => {
    this.scheduled = false;
    unwritten.delete(this);
    const lines = this.lines;
    if (lines.length === 0) return;
    this.lines = [];
    this.target.write(lines.length === 1 ? (lines[0] as string) : lines.join(''));
  };
}
