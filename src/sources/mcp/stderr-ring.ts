/** Lines kept per server by default: enough to see why a server complains, small enough to hold for all. */
export const STDERR_LINES = 20;
/** A line longer than this is cut (a server dumping a blob on one line cannot grow the ring). */
export const STDERR_LINE_CHARS = 1000;

/**
 * The last lines a stdio server wrote to stderr, bounded in count and in line length: what the
 * console's servers page shows (the full stream goes to the log). Lines are kept as written;
 * whoever shows them masks secrets, as every other output is masked.
 */
export class StderrRing {
  private readonly lines: string[] = [];

  constructor(private readonly capacity = STDERR_LINES) {}

  /** Adds a line, dropping the oldest once full; blank lines are skipped. */
  push(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line);
    if (this.lines.length > this.capacity) this.lines.shift();
  }

  /** The lines kept, oldest first. */
  recent(): string[] {
    return [...this.lines];
  }
}
