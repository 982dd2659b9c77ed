/** Inclusive code point ranges. */
type Range = readonly [number, number];

/**
 * C0 controls but tab and newline (ESC starts CSI/OSC sequences; CR rewrites the line; BEL, BS),
 * DEL, and C1 controls (U+009B is a one-character CSI, U+009D an OSC).
 */
const CONTROLS: readonly Range[] = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0x9f],
];

/**
 * The bidirectional marks, embeddings, overrides and isolates (Trojan Source: text that reads
 * other than it is), and the Unicode line and paragraph separators (U+2028, U+2029).
 */
const BIDI: readonly Range[] = [
  [0x061c, 0x061c],
  [0x200e, 0x200f],
  [0x2028, 0x202e],
  [0x2066, 0x2069],
];

const NEWLINE: Range = [0x0a, 0x0a];

/** A regular expression class of `ranges`, written as `\uXXXX` escapes (no raw control in source). */
function classOf(ranges: readonly Range[]): RegExp {
  const hex = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
  const parts = ranges.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`));
  return new RegExp(`[${parts.join('')}]`, 'g');
}

const UNSAFE = classOf([...CONTROLS, ...BIDI]);
const UNSAFE_OR_NEWLINE = classOf([...CONTROLS, NEWLINE, ...BIDI]);

function visible(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` made safe to write to an operator's terminal: every control, escape-introducing and
 * bidirectional character becomes a visible `\uXXXX` (JSON's own escape, so JSON text stays valid
 * JSON that parses to the same value). Downstream servers choose tool names, descriptions, error
 * messages and stderr lines; none of them may move the cursor, recolour, retitle the window, write
 * hyperlinks or the clipboard (OSC 8 / 52), or reorder a line. `multiline` keeps newlines (whole
 * blocks of output); without it a newline is escaped too (one field of a one-line record, which a
 * forged newline could otherwise split into a fake record). Tab is always kept.
 */
export function terminalSafe(text: string, multiline = false): string {
  return text.replace(multiline ? UNSAFE : UNSAFE_OR_NEWLINE, visible);
}

/** Whether `text` holds a character {@link terminalSafe} would escape (newlines count unless `multiline`). */
export function hasTerminalControls(text: string, multiline = false): boolean {
  const pattern = multiline ? UNSAFE : UNSAFE_OR_NEWLINE;
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}
