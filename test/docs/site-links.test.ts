import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenLinks } from '../../scripts/docs-links.js';

/*
 * Links of the documentation site. VitePress fails `npm run docs` on a link to a page that does not
 * exist (shown here on a tiny site of its own); the anchors it does not check are checked in the
 * built site by scripts/docs-links.mjs, which must find none broken in the real site and must find
 * a broken one when there is one.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const SITE = join(ROOT, 'docs', '.vitepress', 'dist');
const VITEPRESS = join(ROOT, 'node_modules', 'vitepress', 'bin', 'vitepress.js');

const findBroken = brokenLinks;

describe('the documentation site', () => {
  it('has no link to a missing page or anchor (built by `npm run docs`)', () => {
    expect(existsSync(join(SITE, 'index.html')), 'docs/.vitepress/dist is missing: run `npm run docs`').toBe(
      true,
    );
    expect(existsSync(join(SITE, 'reference', 'config.html'))).toBe(true);
    expect(findBroken(SITE)).toEqual([]);
  });
});

describe('the anchor checker', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'aperture-links-'));
    mkdirSync(join(dir, 'guide'));
    const doc = (body: string) => `<html><body><div class="vp-doc _x">${body}</div></body></html>`;
    writeFileSync(join(dir, 'index.html'), doc('<h2 id="top">Top</h2><a href="/guide/a.html#here">ok</a>'));
    writeFileSync(
      join(dir, 'guide', 'a.html'),
      doc(
        '<h2 id="here">Here</h2><a href="#here">ok</a><a href="./a.html#nowhere">bad anchor</a>' +
          '<a href="/missing.html">bad page</a><a href="https://example.com/#x">external</a><a href="../index.html#top">ok</a>',
      ),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names each broken link and nothing else', () => {
    expect(findBroken(dir)).toEqual([
      { page: 'guide/a.html', href: './a.html#nowhere', problem: 'no #nowhere in guide/a.html' },
      { page: 'guide/a.html', href: '/missing.html', problem: 'no such page' },
    ]);
  });
});

describe('a dead link in a page', () => {
  let site: string;
  beforeAll(() => {
    // A tiny site beside a real node_modules, so `vitepress build` resolves its own packages.
    site = mkdtempSync(join(tmpdir(), 'aperture-deadlink-'));
    symlinkSync(join(ROOT, 'node_modules'), join(site, 'node_modules'));
    mkdirSync(join(site, 'docs'));
    writeFileSync(join(site, 'docs', 'other.md'), '# Other\n');
  });
  afterAll(() => rmSync(site, { recursive: true, force: true }));

  const build = (index: string) => {
    writeFileSync(join(site, 'docs', 'index.md'), index);
    return spawnSync(process.execPath, [VITEPRESS, 'build', 'docs'], {
      cwd: site,
      encoding: 'utf8',
      timeout: 180_000,
    });
  };

  it('fails the build, naming the link; the same site without it builds', () => {
    const good = build('# Home\n\n[other](./other.md)\n');
    expect(good.status, good.stderr).toBe(0);
    const bad = build('# Home\n\n[other](./other.md) and [gone](./gone.md)\n');
    expect(bad.status).not.toBe(0);
    expect(`${bad.stdout}${bad.stderr}`).toMatch(/dead link[\s\S]*gone/i);
  }, 300_000);
});
