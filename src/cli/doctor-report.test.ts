import { describe, expect, it, vi } from 'vitest';
import type { ServerConfig } from '../config/config-schema.js';
import { hasTerminalControls } from '../foundation/util/terminal-safe.js';
import { StreamingTable, summarise, summaryLine } from './doctor-report.js';
import type { ServerCheck } from './doctor-server-check.js';

function check(name: string, state: ServerCheck['state'], tools: number | null): ServerCheck {
  return {
    name,
    namespace: name,
    kind: 'stdio',
    transport: 'stdio',
    state,
    protocolVersion: null,
    connectMs: null,
    listMs: null,
    tools,
    server: null,
    failedStep: null,
    error: null,
    notes: [],
  };
}

describe('doctor summary', () => {
  it('counts servers by state and adds up their tools', () => {
    const summary = summarise(
      [check('a', 'ok', 3), check('b', 'failed', null), check('c', 'skipped', null)],
      40,
    );
    expect(summary).toEqual({ servers: 3, checked: 2, ok: 1, failed: 1, skipped: 1, tools: 3, totalMs: 40 });
    expect(summaryLine(summary)).toBe('3 servers: 1 ok, 1 failed, 1 skipped; 3 tools; 40 ms');
  });

  it('says "server" for one and leaves out skipped when none was', () => {
    expect(summaryLine(summarise([check('a', 'ok', 2)], 5))).toBe('1 server: 1 ok, 0 failed; 2 tools; 5 ms');
  });

  it('counts a server whose npx package is still being installed, apart from the failed', () => {
    const summary = summarise([check('a', 'ok', 2), check('b', 'installing', null)], 5);
    expect(summary).toMatchObject({ ok: 1, failed: 0, installing: 1 });
    expect(summaryLine(summary)).toBe('2 servers: 1 ok, 0 failed, 1 installing; 2 tools; 5 ms');
  });
});

describe('doctor table', () => {
  it('shows a downstream server’s name, version and error with its controls escaped, never obeyed', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const table = new StreamingTable([['evil', { kind: 'stdio' } as unknown as ServerConfig]]);
      table.row({
        ...check('evil', 'failed', null),
        server: { name: 'srv\u001b]0;owned\u0007', version: '1\u009b2J' },
        failedStep: 'list',
        error: { code: 'backend_unavailable', message: 'boom\u001b[2J\u202eexe.txt' },
      });
    } finally {
      spy.mockRestore();
    }
    const out = written.join('');
    expect(hasTerminalControls(out, true)).toBe(false);
    expect(out).toContain('srv\\u001b]0;owned\\u0007');
    expect(out).toContain('boom\\u001b[2J\\u202eexe.txt');
  });
});

describe('doctor table columns', () => {
  it('fit their content: a protocol revision like 2025-11-25 keeps every later column aligned', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const table = new StreamingTable([
        ['everything', { kind: 'stdio' } as unknown as ServerConfig],
        ['remote', { kind: 'remote' } as unknown as ServerConfig],
      ]);
      table.header();
      table.row({
        ...check('everything', 'ok', 12),
        protocolVersion: '2025-11-25',
        connectMs: 812,
        listMs: 40,
      });
      table.row({ ...check('remote', 'skipped', null), transport: 'streamable-http' });
    } finally {
      spy.mockRestore();
    }
    const [header = '', first = '', second = ''] = written.join('').split('\n');
    // Each column starts where its header does.
    for (const [title, cell, line] of [
      ['STATE', 'ok', first],
      ['STATE', 'skipped', second],
      ['TRANSPORT', 'streamable-http', second],
      ['PROTOCOL', '2025-11-25', first],
    ] as const) {
      expect(line.indexOf(` ${cell}`) + 1, `${title} vs ${cell}`).toBe(header.indexOf(title));
    }
    // Right-aligned figures end where their headers end.
    expect(first.indexOf('812 ms') + '812 ms'.length).toBe(header.indexOf('CONNECT') + 'CONNECT'.length);
  });
});
