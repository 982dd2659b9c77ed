import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliCommands,
  configKeys,
  httpRoutes,
  REFERENCE_DIR,
  referencePages,
} from '../../scripts/docs-reference.js';
import { createProgram } from '../../src/cli/program.js';
import { configJsonSchema } from '../../src/config/config-json-schema.js';
import { GATEWAY_ERROR_CODES } from '../../src/foundation/model/error-codes.js';
import { METATOOLS } from '../../src/surfaces/mcp/metatools.js';

/*
 * The reference pages of the documentation site are generated from the code (scripts/docs-reference.ts)
 * and committed. This test fails when a committed page is stale, proves that a change of a schema
 * description makes it stale, and walks each source list — config keys, CLI commands, HTTP routes,
 * error codes, metrics and spans, metatools — looking every item up in the pages.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const page = (name: string) => readFileSync(join(ROOT, REFERENCE_DIR, name), 'utf8');
let generated: Map<string, string>;

beforeAll(async () => {
  generated = await referencePages();
});

describe('generated reference pages', () => {
  it('are committed exactly as the code generates them (run `npm run docs:reference` when not)', () => {
    expect([...generated.keys()].sort()).toEqual(
      ['cli.md', 'config.md', 'errors.md', 'http.md', 'index.md', 'metatools.md', 'metrics.md'].sort(),
    );
    for (const [name, text] of generated) expect(page(name), `${REFERENCE_DIR}/${name} is stale`).toBe(text);
  });

  describe('a description changed in the schema', () => {
    // A copy of the sources with one key's `.describe()` text changed: its config page goes stale.
    let copy: string;
    beforeAll(() => {
      copy = mkdtempSync(join(tmpdir(), 'aperture-docs-stale-'));
      for (const part of ['src', 'scripts', 'docs/reference', 'package.json', 'tsconfig.json'])
        cpSync(join(ROOT, part), join(copy, part), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    });
    afterAll(() => rmSync(copy, { recursive: true, force: true }));

    const check = () =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/docs-reference.ts', '--check'], {
        cwd: copy,
        encoding: 'utf8',
        timeout: 120_000,
      });

    it('leaves the pages current when nothing changed, and makes the config page stale when it did', () => {
      const before = check();
      expect(before.stderr).toBe('');
      expect(before.status).toBe(0);

      const schemaFile = join(copy, 'src/config/config-schema.ts');
      const original = "'Open connections at most; past it new connections are closed at once.'";
      const source = readFileSync(schemaFile, 'utf8');
      expect(source).toContain(original);
      writeFileSync(schemaFile, source.replace(original, "'At most this many open connections (edited).'"));

      const after = check();
      expect(after.status).toBe(1);
      expect(after.stderr).toContain('stale reference pages');
      expect(after.stderr).toContain('config.md');
      expect(after.stderr).not.toContain('cli.md');
    }, 240_000);
  });

  it('list every config key with its type and description, and a section for each top-level key', () => {
    const text = generated.get('config.md') ?? '';
    const keys = configKeys(configJsonSchema());
    expect(keys.length).toBeGreaterThan(300);
    const missing = keys
      .filter((key) => key.path.includes('.') || key.path.includes('['))
      .filter((key) => !text.includes(`| \`${key.path}\` |`))
      .map((key) => key.path);
    expect(missing).toEqual([]);
    const sections = Object.keys((configJsonSchema().properties ?? {}) as object);
    expect(sections.filter((name) => !text.includes(`\n## ${name}\n`))).toEqual([]);
    // An example per section (besides the editor hint `$schema` and VS Code's ignored `inputs`).
    const withExample = text
      .split('\n## ')
      .slice(1)
      .filter((part) => part.includes('\nExample:\n'))
      .map((part) => part.split('\n')[0]);
    expect(
      sections.filter((name) => !['$schema', 'inputs'].includes(name) && !withExample.includes(name)),
    ).toEqual([]);
    // Descriptions come from the schema: one the schema has is on the page.
    expect(text).toContain('| `http.maxConnections` | `integer` | `1024` | Open connections at most;');
  });

  it('list every CLI command and each of its options', () => {
    const text = generated.get('cli.md') ?? '';
    const commands = cliCommands(createProgram());
    expect(commands.map((c) => c.name)).toEqual(
      expect.arrayContaining(['aperture serve', 'aperture config validate', 'aperture policy test']),
    );
    const missing: string[] = [];
    for (const { name, command } of commands) {
      if (!text.includes(`\n## ${name}\n`)) missing.push(name);
      for (const option of command.options)
        if (!text.includes(`\`${option.flags.replace(/\|/g, '\\|')}\``))
          missing.push(`${name} ${option.flags}`);
    }
    expect(missing).toEqual([]);
  });

  it('list every HTTP route of the OpenAPI document', () => {
    const text = generated.get('http.md') ?? '';
    const routes = httpRoutes();
    expect(routes).toEqual(
      expect.arrayContaining(['GET /api/tools', 'POST /api/search', 'GET /api/admin/audit']),
    );
    expect(routes.filter((route) => !text.includes(`## \`${route}\``))).toEqual([]);
  });

  it('list every error code', () => {
    const text = generated.get('errors.md') ?? '';
    expect(GATEWAY_ERROR_CODES.filter((code) => !text.includes(`| \`${code}\` |`))).toEqual([]);
  });

  it('list every metric and span name the observers define (read from their source files)', () => {
    const text = generated.get('metrics.md') ?? '';
    const source = (file: string) => readFileSync(join(ROOT, 'src/operations/observe', file), 'utf8');
    const prometheus = [...source('prometheus-metrics.ts').matchAll(/\bname: '([a-z_]+)'/g)].map((m) => m[1]);
    const otel = [...source('otel-metrics.ts').matchAll(/\.create\w+\(\s*'([a-z_]+)'/g)].map((m) => m[1]);
    expect(prometheus.length).toBeGreaterThan(8);
    expect(otel.length).toBeGreaterThan(3);
    const metrics = [...new Set([...prometheus, ...otel])];
    expect(metrics.filter((name) => !text.includes(`| \`${name}\` |`))).toEqual([]);
    // Span names: the literal first argument of each startSpan, template parts as `{…}`.
    const spans = [...source('span-observers.ts').matchAll(/startSpan\(\s*[`']([^`']+)[`']/g)].map((m) =>
      (m[1] ?? '').replace(/\$\{(?:[a-z]+\.)*([a-z]+)\}/gi, '{$1}'),
    );
    expect(spans.length).toBe(3);
    expect(spans.filter((name) => !text.includes(`| \`${name}\` |`))).toEqual([]);
  });

  it('list every metatool with its token count', () => {
    const text = generated.get('metatools.md') ?? '';
    for (const metatool of METATOOLS)
      expect(text).toMatch(new RegExp(`\\| \\[\`${metatool.name}\`\\]\\(#[^)]+\\) \\| [^|]+ \\| \\d+ \\|`));
  });
});
