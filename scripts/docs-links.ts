/**
 * The anchor checker of the documentation site: VitePress fails its build on a link to a page that
 * does not exist, but not on a link to a heading a page does not have. This reads the built HTML
 * (docs/.vitepress/dist) and lists every internal link whose page or `#anchor` is missing.
 * test/docs/site-links.test.ts runs it after `npm run docs`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every .html file under `dir`, as paths relative to it with `/` separators. */
function htmlFiles(dir: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory() && entry.name !== 'assets') found.push(...htmlFiles(dir, rel));
    else if (entry.name.endsWith('.html')) found.push(rel);
  }
  return found;
}

/** The ids of a page's elements: the anchors a link may name. */
function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => decodeEntities(match[1] ?? '')));
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/**
 * The broken internal links of a built site: `{ page, href, problem }` for each link (in the page's
 * content, not the theme's chrome) to a missing page or a missing anchor.
 */
/** A link of the built site that leads nowhere. */
export interface BrokenLink {
  page: string;
  href: string;
  problem: string;
}

export function brokenLinks(siteDir: string): BrokenLink[] {
  const pages = new Map<string, string>();
  for (const file of htmlFiles(siteDir)) pages.set(file, readFileSync(path.join(siteDir, file), 'utf8'));
  const ids = new Map([...pages].map(([file, html]) => [file, idsOf(html)]));
  const broken: BrokenLink[] = [];
  for (const [file, html] of pages) {
    // Only the Markdown content: the theme's own links (skip links, the sidebar) are not the docs'.
    const start = html.indexOf('class="vp-doc');
    if (start < 0) continue;
    const content = html.slice(start);
    for (const match of content.matchAll(/<a\s[^>]*href="([^"]*)"/g)) {
      const href = decodeEntities(match[1] ?? '');
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue;
      const [target = '', anchor] = href.split('#', 2);
      let targetFile = file;
      if (target !== '') {
        const resolved = target.startsWith('/')
          ? target.slice(1)
          : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        targetFile = resolved === '' || resolved.endsWith('/') ? `${resolved}index.html` : resolved;
        if (!targetFile.endsWith('.html') && pages.has(`${targetFile}.html`))
          targetFile = `${targetFile}.html`;
        if (!pages.has(targetFile)) {
          // Assets (images, files under public/) are not pages; they must exist on disk.
          if (!/\.html$/.test(targetFile)) continue;
          broken.push({ page: file, href, problem: 'no such page' });
          continue;
        }
      }
      if (anchor !== undefined && anchor !== '' && !ids.get(targetFile)?.has(decodeURIComponent(anchor))) {
        broken.push({ page: file, href, problem: `no #${anchor} in ${targetFile}` });
      }
    }
  }
  return broken;
}
