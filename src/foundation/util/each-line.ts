/** Options of {@link forEachLine}. */
export interface EachLineOptions {
  /**
   * Longest line kept while waiting for its newline, in characters: a runaway writer cannot
   * exhaust memory. Default 64 Mi.
   */
  maxLineLength?: number;
  /**
   * Told, with the line's first 200 characters, when a line is longer than `maxLineLength`; the
   * rest of that line, up to its newline, is dropped. Without it the head is passed to `onLine` as
   * a line.
   */
  onOverlong?: (head: string) => void;
  /**
   * Told, with the line's last 200 characters, when the newline of a line reported to `onOverlong`
   * arrives (JSON-RPC answers end with their `id`); not told when the stream ends first.
   */
  onOverlongEnd?: (tail: string) => void;
}

/** How many characters of an over-long line's head and tail are reported. */
const EDGE = 200;

/** The default of `EachLineOptions.maxLineLength`: 64 Mi characters. */
export const DEFAULT_MAX_LINE_LENGTH = 64 * 1024 * 1024;

/**
 * Calls `onLine` for each newline-terminated line of `stream` (a trailing `\r` removed), and for a
 * last unterminated one when the stream ends. The stream is read as UTF-8. Returns a function that
 * stops reading (removes the listeners; the stream is left as it is).
 */
export function forEachLine(
  stream: NodeJS.ReadableStream | null | undefined,
  onLine: (line: string) => void,
  options: EachLineOptions = {},
): () => void {
  if (!stream) return () => {};
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const overlong = options.onOverlong ?? onLine;
  const overlongEnd = options.onOverlong ? options.onOverlongEnd : undefined;
  let buffer = '';
  // True while the rest of an over-long line is being dropped; `tail` keeps its last characters.
  let dropping = false;
  let tail = '';
  stream.setEncoding?.('utf8');
  const onData = (chunk: string) => {
    let from = 0;
    let index = chunk.indexOf('\n');
    if (dropping) {
      if (index === -1) {
        if (overlongEnd) tail = (tail + chunk.slice(-EDGE)).slice(-EDGE);
        return;
      }
      dropping = false;
      overlongEnd?.((tail + chunk.slice(0, index)).slice(-EDGE));
      tail = '';
      from = index + 1;
      index = chunk.indexOf('\n', from);
    }
    while (index !== -1) {
      const line = buffer === '' ? chunk.slice(from, index) : buffer + chunk.slice(from, index);
      buffer = '';
      if (line.length > maxLineLength) {
        overlong(line.slice(0, EDGE));
        overlongEnd?.(line.slice(-EDGE));
      } else onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      from = index + 1;
      index = chunk.indexOf('\n', from);
    }
    if (from < chunk.length) buffer += chunk.slice(from);
    if (buffer.length > maxLineLength) {
      overlong(buffer.slice(0, EDGE));
      tail = buffer.slice(-EDGE);
      buffer = '';
      dropping = true;
    }
  };
  const onEnd = () => {
    if (buffer !== '' && !dropping) onLine(buffer);
    buffer = '';
    tail = '';
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  return () => {
    stream.removeListener('data', onData);
    stream.removeListener('end', onEnd);
  };
}

/**
 * True for a line with nothing but whitespace, which both stdio ends skip. A line that starts with
 * a visible character (every JSON-RPC message) is decided by its first character, without the copy
 * `trim()` makes of it.
 */
export function isBlank(line: string): boolean {
  return line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '');
}
