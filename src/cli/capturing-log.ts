import type { Logger } from '../foundation/ports/logger.js';
import type { ProcessExit } from '../sources/mcp/stdio-process-transport.js';

/** stderr lines kept per server: enough for npm's whole error block. */
const KEPT_STDERR_LINES = 50;
/** Lines of a failure's stderr shown: the first ones that say something, root cause first. */
const SHOWN_STDERR_LINES = 3;
/** A line that names a failure: an error code (E404, ENOENT), an error class, or error words. */
const MEANINGFUL =
  /\b(E[A-Z0-9]{2,}|[A-Za-z]*Error|error|ERR!|not found|cannot|can't|could not|failed|denied|refused|missing|invalid|unknown|no such)\b/i;
/** Lines that never say why: npm's pointer to its log, bare prefixes, stack frames. */
const NOISE = /complete log of this run|^\s*at\s|^(npm (error|ERR!)( \d{3})?|npm warn.*)\s*$/i;

/**
 * A logger that keeps what tells why a server failed: how it exited, the meaningful lines of its
 * stderr (npm's `E404 Not Found`, not only its last line, a pointer to a log file), and what it
 * wrote to stdout that is not JSON-RPC (a stdio server must write nothing else there).
 */
export class CapturingLog implements Logger {
  private readonly stderr: string[] = [];
  private readonly stdout: string[] = [];
  private nonJsonLines = 0;
  private exit: string | undefined;

  /** Downstream stderr arrives at debug (the transport's level for it); older code logged it at info. */
  debug(obj: object, msg?: string): void {
    this.capture(obj, msg);
  }
  info(obj: object, msg?: string): void {
    this.capture(obj, msg);
  }
  private capture(obj: object, msg?: string): void {
    if ((obj as { stream?: unknown }).stream === 'stderr' && msg !== undefined && msg.trim() !== '') {
      this.stderr.push(msg.trim());
      if (this.stderr.length > KEPT_STDERR_LINES) this.stderr.shift();
    }
  }
  warn(obj: object, msg?: string): void {
    if (msg === 'skipped a stdout line that is not JSON-RPC') {
      this.nonJsonLines++;
      const line = (obj as { line?: unknown }).line;
      if (typeof line === 'string' && this.stdout.length < 2) this.stdout.push(line.trim());
    }
  }
  error(): void {}
  child(): Logger {
    return this;
  }

  /** Records how the server's process exited (the transport's `onExit`). */
  exited(exit: ProcessExit): void {
    this.exit = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  }

  /** What the server wrote to stdout that is not JSON-RPC, as a note; undefined when nothing. */
  stdoutNote(): string | undefined {
    if (this.nonJsonLines === 0) return undefined;
    const quoted = this.stdout.map((line) => JSON.stringify(truncate(oneLine(line), 80))).join(', ');
    const more =
      this.nonJsonLines > this.stdout.length ? ` and ${this.nonJsonLines - this.stdout.length} more` : '';
    return `wrote non-JSON to stdout (${quoted}${more}); a stdio server must write only JSON-RPC there, logs go to stderr`;
  }

  /** The failure message plus how the process exited, what its stderr says, and stray stdout. */
  explain(message: string): string {
    const extra: string[] = [];
    if (this.exit) extra.push(`process exited with ${this.exit}`);
    const said = this.meaningfulStderr();
    if (said.length > 0) extra.push(`stderr: ${said.map(oneLine).join(' | ')}`);
    const note = this.stdoutNote();
    if (note !== undefined) extra.push(note);
    return extra.length === 0 ? message : `${message} (${extra.join('; ')})`;
  }

  /** The first lines naming a failure (root cause first); else the last line that is not noise. */
  private meaningfulStderr(): string[] {
    const candidates = this.stderr.filter((line) => !NOISE.test(line));
    const meaningful = [...new Set(candidates.filter((line) => MEANINGFUL.test(line)))];
    if (meaningful.length > 0) return meaningful.slice(0, SHOWN_STDERR_LINES);
    const last = candidates.at(-1) ?? this.stderr.at(-1);
    return last === undefined ? [] : [last];
  }
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
