import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { runSourceContract } from '../../catalog/source.contract.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { groupByNamespace } from '../declared/declared-section.js';
import { COMMAND_DRIVER } from './command-driver.js';
import { type CommandEntry, commandEntrySchema } from './command-entry.js';
import { loadCommandSource } from './command-source.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/commands');
const ECHO = './echo-stdin.mjs';

const context = (signal = new AbortController().signal): ExecutionContext => ({
  signal,
  callId: 'c',
  caller: { identity: 't' },
  progress: () => {},
  log: silentLogger,
});

function group(spec: Record<string, Record<string, unknown>>) {
  const entries: Record<string, CommandEntry> = Object.fromEntries(
    Object.entries(spec).map(([k, v]) => [k, commandEntrySchema.parse(v)]),
  );
  const [first] = groupByNamespace('commands', entries);
  if (!first) throw new Error('no group');
  return first[1];
}

async function load(spec: Record<string, Record<string, unknown>>): Promise<CatalogEntry[]> {
  return loadCommandSource(group(spec), {
    sourceId: 'command:commands',
    baseDir: FIXTURES,
    log: silentLogger,
  });
}

async function call(spec: Record<string, unknown>, args: Record<string, unknown>): Promise<unknown> {
  const [entry] = await load({ t: spec });
  if (!entry) throw new Error('no tool');
  return entry.backend.execute(entry.tool, args, context());
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

runSourceContract('commands', async () => ({
  source: COMMAND_DRIVER.section.create('commands', group({ a: { command: ECHO }, b: { command: ECHO } }), {
    baseDir: FIXTURES,
    log: silentLogger,
    clientInfo: { name: 't', version: '1' },
  }),
  ids: ['commands:a', 'commands:b'],
}));

describe('command tools', () => {
  it('passes templated argv items (no shell) and the arguments as JSON on stdin; parses JSON stdout', async () => {
    process.env.APERTURE_TEST_SECRET = 'not for commands';
    const result = await call(
      { command: ECHO, args: ['--name={name}', '{files}', '{flag}', '$(whoami); rm -rf /'], stdin: 'json' },
      { name: 'a b', files: ['x', 'y'], n: 1 },
    );
    delete process.env.APERTURE_TEST_SECRET;
    expect(result).toEqual({
      argv: ['--name=a b', 'x', 'y', '$(whoami); rm -rf /'],
      input: { name: 'a b', files: ['x', 'y'], n: 1 },
      // The gateway's environment is not handed down.
      secret: null,
    });
  });

  it('infers the input schema: text placeholders required, whole-item ones optional; open with stdin json', async () => {
    const [entry] = await load({ t: { command: ECHO, args: ['--name={name}', '{flag}'], stdin: 'json' } });
    expect(entry?.tool.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, flag: { type: 'string' } },
      required: ['name'],
      additionalProperties: true,
    });
  });

  it('answers text when stdout is not JSON', async () => {
    expect(await call({ command: ECHO, args: ['--text', '{w}'] }, { w: 'hi' })).toBe('plain --text hi\n');
  });

  it('maps a non-zero exit to execution_failed with the code and stderr, and a slow one to timeout', async () => {
    const failed = await failure(call({ command: ECHO, args: ['--fail'] }, {}));
    expect([failed.code, failed.details?.exitCode]).toEqual(['execution_failed', 3]);
    expect(failed.message).toContain('asked to fail');
    const slow = await failure(call({ command: 'sleep', args: ['5'], timeoutMs: 100 }, {}));
    expect(slow.code).toBe('timeout');
  });

  it('refuses a missing program or an unknown template name with config_invalid naming the key', async () => {
    const missing = await failure(load({ t: { command: 'no-such-program-aperture' } }));
    expect([missing.code, missing.details?.key]).toEqual(['config_invalid', 'commands.t.command']);
    const typo = await failure(
      load({
        t: { command: ECHO, args: ['{nmae}'], inputSchema: { type: 'object', properties: { name: {} } } },
      }),
    );
    expect([typo.code, typo.details?.key]).toEqual(['config_invalid', 'commands.t.args[0]']);
  });
});
