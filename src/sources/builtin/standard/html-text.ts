/*
 * HTML to readable text for `std:fetch`: enough for an agent to read a page, not a renderer. No
 * parser dependency: tags are dropped, block elements become line breaks, entities are decoded.
 */

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  copy: '©',
  reg: '®',
  laquo: '«',
  raquo: '»',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

const BLOCK =
  /<\/?(?:p|div|br|hr|li|ul|ol|tr|table|section|article|header|footer|nav|aside|main|h[1-6]|pre|blockquote|dt|dd|figure|figcaption)\b[^>]*>/gi;

/** The text of an HTML document: its `<title>` first, scripts and styles dropped, blocks on their own lines. */
export function htmlToText(html: string): string {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const body = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(BLOCK, '\n')
    .replace(/<[^>]*>/g, '');
  const text = decodeEntities(body)
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const heading = title ? decodeEntities(title).replace(/\s+/g, ' ').trim() : '';
  return heading && !text.startsWith(heading) ? `${heading}\n\n${text}` : text;
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
