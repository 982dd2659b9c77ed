import { describe, expect, it } from 'vitest';
import { summarise, summaryLine } from './doctor-report.js';
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
