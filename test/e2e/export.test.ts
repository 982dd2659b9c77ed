import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from './gateway-process.js';

const exec = promisify(execFile);

/**
 * Runs `export` in a child process. Uses the built CLI once `main.ts` registers the command;
 * until then, a commander program around `exportCommand` run from source (tsx), which is the same
 * code path minus the other commands.
 */
const FROM_SOURCE = `
import { Command } from 'commander';
import { exportCommand } from './src/cli/export-command.ts';
const program = new Command('aperture').option('-c, --config <file>')
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));
exportCommand(program);
await program.parseAsync(process.argv.slice(1), { from: 'user' });
`;

let builtHasExport = false;

async function run(command: string, args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr, command };
  }
}

function aperture(args: string[]) {
  return builtHasExport
    ? run('built', [CLI, ...args])
    : run('source', ['--import', 'tsx', '--input-type=module', '-e', FROM_SOURCE, '--', ...args]);
}

type Json = Record<string, unknown>;

/** Every schema node of a JSON value, depth first. */
function nodes(value: unknown): Json[] {
  if (Array.isArray(value)) return value.flatMap(nodes);
  if (typeof value !== 'object' || value === null) return [];
  return [value as Json, ...Object.values(value).flatMap(nodes)];
}

const BUILTIN = [
  'json:query',
  'plantuml:decode',
  'plantuml:encode',
  'text:stats',
  'time:convert',
  'time:now',
];
const NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

describe('aperture export', () => {
  beforeAll(async () => {
    builtHasExport = /^\s+export\b/m.test((await run('built', [CLI, '--help'])).stdout);
  });

  it('mcp: a tools/list result with valid names and object input schemas', async () => {
    const result = await aperture(['export', '--format', 'mcp']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const { tools } = JSON.parse(result.stdout) as { tools: Json[] };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['time__now', 'plantuml__encode']));
    for (const tool of tools) {
      expect(tool.name).toMatch(NAME);
      expect(tool).toMatchObject({ description: expect.any(String), inputSchema: { type: 'object' } });
    }
  });

  it('openai: Chat Completions tools; warnings go to stderr, one line each, exit 0', async () => {
    const result = await aperture(['export', '--format', 'openai']);
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as { type: string; function: Json }[];
    expect(tools.length).toBeGreaterThanOrEqual(BUILTIN.length);
    for (const tool of tools) {
      expect(tool.type).toBe('function');
      expect(tool.function.name).toMatch(NAME);
      expect(tool.function).not.toHaveProperty('strict');
      expect(tool.function.parameters).toMatchObject({ type: 'object' });
    }
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^warning: \S+ \(openai\): /);
  });

  it('openai --strict: closed objects with every property required, or strict: false with a reason', async () => {
    const result = await aperture(['export', '--format', 'openai', '--strict']);
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as {
      function: { name: string; strict: boolean; parameters: Json };
    }[];
    const strict = tools.filter((t) => t.function.strict);
    expect(strict.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['time__now', 'plantuml__encode']),
    );
    for (const tool of strict) {
      for (const node of nodes(tool.function.parameters)) {
        const types = Array.isArray(node.type) ? node.type : [node.type];
        if (!types.includes('object')) continue;
        expect(node.additionalProperties).toBe(false);
        expect(node.required).toEqual(Object.keys(node.properties as Json));
      }
      for (const node of nodes(tool.function.parameters)) {
        for (const keyword of ['default', 'minLength', 'maxLength', 'examples', '$schema']) {
          expect(node).not.toHaveProperty(keyword);
        }
      }
    }
    for (const tool of tools.filter((t) => !t.function.strict)) {
      expect(result.stderr).toMatch(
        /warning: \S+ \(openai strict\): strict mode impossible \(.+\); exported with strict: false/,
      );
      expect(tool.function.strict).toBe(false);
    }
  });

  it('openai-responses: flat function tools that always state strict', async () => {
    const result = await aperture(['export', '--format', 'openai-responses']);
    const tools = JSON.parse(result.stdout) as Json[];
    for (const tool of tools) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'name', 'parameters', 'strict', 'type']);
      expect(tool.strict).toBe(false);
    }
  });

  it('anthropic: name, description and an object input_schema without root combinators', async () => {
    const result = await aperture(['export', '--format', 'anthropic']);
    const tools = JSON.parse(result.stdout) as Json[];
    for (const tool of tools) {
      expect(Object.keys(tool)).toEqual(['name', 'description', 'input_schema']);
      const schema = tool.input_schema as Json;
      expect(schema.type).toBe('object');
      for (const keyword of ['anyOf', 'oneOf', 'allOf']) expect(schema).not.toHaveProperty(keyword);
    }
  });

  it("gemini: one tool of function declarations in Gemini's OpenAPI subset", async () => {
    const result = await aperture(['export', '--format', 'gemini']);
    expect(result.code).toBe(0);
    const { functionDeclarations } = JSON.parse(result.stdout) as { functionDeclarations: Json[] };
    expect(functionDeclarations.length).toBeGreaterThanOrEqual(BUILTIN.length);
    for (const declaration of functionDeclarations) {
      expect(declaration.name).toMatch(NAME);
      expect((declaration.parameters as Json | undefined)?.type ?? 'OBJECT').toBe('OBJECT');
      for (const node of nodes([declaration.parameters, declaration.response])) {
        for (const keyword of [
          'additionalProperties',
          '$ref',
          '$defs',
          'const',
          'oneOf',
          'examples',
          '$schema',
        ]) {
          expect(node).not.toHaveProperty(keyword);
        }
        if (typeof node.type === 'string')
          expect(node.type).toMatch(/^(STRING|NUMBER|INTEGER|BOOLEAN|ARRAY|OBJECT)$/);
      }
    }
    for (const line of result.stderr.trim().split('\n')) expect(line).toMatch(/^warning: \S+ \(gemini\): /);
  });

  it('a2a: one skill per tool, keyed by tool id', async () => {
    const result = await aperture(['export', '--format', 'a2a']);
    const skills = JSON.parse(result.stdout) as Json[];
    expect(skills.map((s) => s.id)).toEqual(expect.arrayContaining(BUILTIN));
    for (const skill of skills) {
      expect(skill).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        tags: expect.any(Array),
        inputModes: ['application/json', 'text/plain'],
        outputModes: ['application/json', 'text/plain'],
      });
    }
  });

  it('refuses an unknown format and any toolset with one line and a non-zero exit', async () => {
    const [format, toolset, missing] = await Promise.all([
      aperture(['export', '--format', 'yaml']),
      aperture(['export', '--format', 'mcp', '--toolset', 'team']),
      aperture(['export']),
    ]);
    expect(format.code).not.toBe(0);
    expect(format.stdout).toBe('');
    expect(format.stderr.trim().split('\n')).toHaveLength(1);
    expect(format.stderr).toMatch(/^aperture: invalid_request: --format must be one of mcp, openai, /);

    expect(toolset.code).not.toBe(0);
    expect(toolset.stderr.trim()).toBe('aperture: invalid_request: unknown toolset "team"');

    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--format');
  });

  it('warns that --strict only concerns the OpenAI formats', async () => {
    const result = await aperture(['export', '--format', 'anthropic', '--strict']);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(
      'warning: --strict applies to the openai formats only; ignored for anthropic',
    );
  });
});
