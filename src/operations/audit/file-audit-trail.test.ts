import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { runAuditTrailContract } from './audit-trail.contract.js';
import { FileAuditTrail, verifyAuditFile } from './file-audit-trail.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const read = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

runAuditTrailContract('FileAuditTrail', async () => {
  const path = join(dir, `trail${++files}`, 'audit.jsonl');
  return { open: () => FileAuditTrail.open({ path }), lines: async () => read(path) };
});

describe('FileAuditTrail', () => {
  async function written(count: number): Promise<string> {
    const path = join(dir, `v${++files}.jsonl`);
    const trail = await FileAuditTrail.open({ path });
    for (let i = 1; i <= count; i++)
      await trail.record({ kind: 'call', actor: `caller${i}`, tool: 'demo:echo' });
    await trail.close();
    return path;
  }

  it('verifies a file it wrote, and names the line after one byte of it changed', async () => {
    const path = await written(6);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: true, lines: 6 });
    const text = readFileSync(path, 'utf8');
    // One byte of line 3's actor: the line is still JSON, only the chain gives it away.
    const at = text.indexOf('caller3');
    writeFileSync(path, `${text.slice(0, at)}D${text.slice(at + 1)}`);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: false, line: 3 });
  });

  it('names a line whose prev was edited, not its predecessor', async () => {
    const path = await written(5);
    const lines = read(path);
    const line = lines[3] ?? '';
    lines[3] = line.replace(/"prev":"(.)/, (_m, c: string) => `"prev":"${c === 'a' ? 'b' : 'a'}`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: false, line: 4 });
  });

  it('names a line that is no longer JSON, a removed line and a reordered pair', async () => {
    const path = await written(5);
    const lines = read(path);
    writeFileSync(path, `${lines.map((l, i) => (i === 1 ? l.slice(1) : l)).join('\n')}\n`);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: false, line: 2 });
    writeFileSync(path, `${lines.filter((_, i) => i !== 2).join('\n')}\n`);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: false, line: 3 });
    const swapped = [lines[0], lines[2], lines[1], lines[3], lines[4]];
    writeFileSync(path, `${swapped.join('\n')}\n`);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: false, line: 2 });
  });

  it('chains to the last line of a file cut short by a crash, which verify then names', async () => {
    const path = await written(3);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, -20));
    const trail = await FileAuditTrail.open({ path });
    await trail.record({ kind: 'call', actor: 'after' });
    await trail.close();
    expect(read(path)).toHaveLength(4);
    expect(await verifyAuditFile(path)).toMatchObject({ ok: false, line: 3 });
  });

  it('logs a failed write instead of throwing at the caller', async () => {
    const errors: object[] = [];
    const log: Logger = { ...silentLogger, error: (obj) => void errors.push(obj), child: () => log };
    const trail = await FileAuditTrail.open({ path: join(dir, `c${++files}.jsonl`), log });
    await trail.close();
    await expect(trail.record({ kind: 'call', actor: 'late' })).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });

  it('rejects verifying a file that does not exist', async () => {
    await expect(verifyAuditFile(join(dir, 'missing.jsonl'))).rejects.toThrow(/ENOENT/);
  });
});
