import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { FlatNaming } from './flat-naming.js';

function recordingLog(records: Record<string, unknown>[]): Logger {
  const write = (obj: object, msg?: string) => void records.push({ ...obj, msg });
  return { debug: write, info: write, warn: write, error: write, child: () => recordingLog(records) };
}

describe('FlatNaming', () => {
  it('prefixes with the namespace unless the server has prefix: false', () => {
    const naming = new FlatNaming({ unprefixed: new Set(['raw']) });
    expect(naming.nameOf(makeTool('srv:echo'))).toBe('srv__echo');
    expect(naming.nameOf(makeTool('raw:echo'))).toBe('echo');
  });

  it('is a pure function: long or odd names are shortened the same way every time', () => {
    const naming = new FlatNaming();
    const tool = makeTool(`srv:${'x'.repeat(80)}`);
    const name = naming.nameOf(tool);
    expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(new FlatNaming().nameOf(tool)).toBe(name);
    expect(naming.nameOf(makeTool('srv:a.b'))).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('on a collision the first configured server keeps the name and the dropped tool is logged once', () => {
    const records: Record<string, unknown>[] = [];
    const naming = new FlatNaming({
      unprefixed: new Set(['first', 'second']),
      order: ['first', 'second'],
      log: recordingLog(records),
    });
    // Sorted by id, "first" < "second" anyway; list "second" first to prove config order decides.
    const tools = [makeTool('second:search'), makeTool('first:search'), makeTool('second:only')];
    const assigned = naming.assign(tools);
    expect(assigned.get('search')?.id).toBe('first:search');
    expect(assigned.get('only')?.id).toBe('second:only');
    expect(assigned.size).toBe(2);
    naming.assign(tools);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ name: 'search', kept: 'first:search', dropped: 'second:search' });
  });

  it('config order decides even against alphabetical order', () => {
    const naming = new FlatNaming({ unprefixed: new Set(['zeta', 'alpha']), order: ['zeta', 'alpha'] });
    expect(naming.assign([makeTool('alpha:x'), makeTool('zeta:x')]).get('x')?.id).toBe('zeta:x');
  });
});
