import { describe, expect, it, vi } from 'vitest';
import { type LoadedConfig, parseConfigValue } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import { ConfigReloader, type SectionApplier } from './config-reloader.js';

function loaded(raw: Record<string, unknown>): LoadedConfig {
  return { ...parseConfigValue(raw), baseDir: '/tmp', secretValues: [] };
}

function logger() {
  const lines: { level: string; fields: unknown; msg: string }[] = [];
  const at = (level: string) => (fields: unknown, msg: string) => lines.push({ level, fields, msg });
  const log = {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
  } as unknown as Logger;
  return { log, lines };
}

/** A reloader over a running config and a "file" whose next contents the test sets. */
function setup(start: Record<string, unknown>, appliers: Record<string, SectionApplier>) {
  let current = loaded(start);
  const file: { next: () => LoadedConfig } = { next: () => current };
  const { log, lines } = logger();
  const reloader = new ConfigReloader({
    current: () => current,
    load: async () => file.next(),
    appliers,
    commit: (next) => {
      current = next;
    },
    log,
  });
  return { reloader, file, lines, current: () => current };
}

const SERVERS = { a: { command: 'node', args: ['a.js'] }, b: { command: 'node', args: ['b.js'] } };

describe('ConfigReloader', () => {
  it('applies only the sections that changed, through their appliers', async () => {
    const servers = vi.fn();
    const overrides = vi.fn();
    const { reloader, file, current } = setup({ servers: SERVERS }, { servers, overrides });
    file.next = () => loaded({ servers: { ...SERVERS, c: { command: 'node', args: ['c.js'] } } });

    const outcome = await reloader.reload('watch');

    expect(outcome).toMatchObject({
      changed: true,
      trigger: 'watch',
      sections: ['servers'],
      servers: { added: ['c'], removed: [], changed: [] },
      applied: ['servers'],
      restartRequired: [],
    });
    expect(servers).toHaveBeenCalledTimes(1);
    expect(overrides).not.toHaveBeenCalled();
    expect(Object.keys(current().config.servers)).toEqual(['a', 'b', 'c']);
  });

  it('keeps a section whose applier threw at its running value, so the next reload applies it again', async () => {
    const servers = vi.fn();
    let fail = true;
    const overrides = vi.fn(() => {
      if (fail) throw new GatewayError('config_invalid', 'overrides: cannot apply');
      return undefined;
    });
    const { reloader, file, current } = setup({ servers: SERVERS }, { servers, overrides });
    const next = loaded({ servers: SERVERS, overrides: { 'a:x': { description: 'd' } } });
    file.next = () => next;

    await expect(reloader.reload('watch')).rejects.toMatchObject({ code: 'config_invalid' });
    // The section that did not apply is not taken for applied: it stays at its running value.
    expect(current().config.overrides).toEqual({});
    expect(servers).not.toHaveBeenCalled();

    fail = false;
    const outcome = await reloader.reload('watch');
    expect(outcome).toMatchObject({ sections: ['overrides'], applied: ['overrides'] });
    expect(overrides).toHaveBeenCalledTimes(2);
    expect(current().config.overrides).toEqual(next.config.overrides);
  });

  it('refuses an invalid config as a whole: logged once with its message, nothing applied, the running one kept', async () => {
    const servers = vi.fn();
    const { reloader, file, lines, current } = setup({ servers: SERVERS }, { servers });
    const before = current();
    file.next = () => {
      throw new GatewayError('config_invalid', 'aperture.yaml: servers.c: needs "command" or "url"');
    };

    await expect(reloader.reload('signal')).rejects.toMatchObject({ code: 'config_invalid' });

    expect(servers).not.toHaveBeenCalled();
    expect(current()).toBe(before);
    // The same broken file seen again (an editor's save fires several events) is not logged again.
    await expect(reloader.reload('watch')).rejects.toMatchObject({ code: 'config_invalid' });
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toContain('config_invalid: aperture.yaml: servers.c: needs "command" or "url"');
  });

  it('keeps the running value of a section it cannot apply live and reports it as needing a restart', async () => {
    const { reloader, file, lines, current } = setup({ search: { strategy: 'bm25' } }, {});
    file.next = () => loaded({ search: { strategy: 'lexical' } });

    const outcome = await reloader.reload('api');

    expect(outcome).toMatchObject({ applied: [], restartRequired: ['search'] });
    expect(current().config.search.strategy).toBe('bm25');
    expect(
      lines.some((line) => line.level === 'warn' && JSON.stringify(line.fields).includes('search')),
    ).toBe(true);
    // Still different from the file: the next reload says so again.
    expect((await reloader.reload('api')).restartRequired).toEqual(['search']);
  });

  it('counts a section as needing a restart when its applier says this change cannot be applied live', async () => {
    const auth = vi.fn(async () => 'restart' as const);
    const { reloader, file, current } = setup({}, { auth });
    file.next = () => loaded({ auth: { apiKeys: [{ name: 'ops', key: 'k'.repeat(32), admin: true }] } });
    const outcome = await reloader.reload('api');
    expect(auth).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ applied: [], restartRequired: ['auth'] });
    expect(current().config.auth.apiKeys).toEqual([]);
  });

  it('answers "nothing changed" for a file saved without edits, logging nothing', async () => {
    const servers = vi.fn();
    const { reloader, file, lines } = setup({ servers: SERVERS }, { servers });
    file.next = () => loaded({ servers: structuredClone(SERVERS) });
    const outcome = await reloader.reload('watch');
    expect(outcome.changed).toBe(false);
    expect(servers).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('runs reloads one at a time; requests during one share a single reload after it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const servers = vi.fn(async () => {
      await gate;
      return undefined;
    });
    const { reloader, file } = setup({ servers: SERVERS }, { servers });
    let reads = 0;
    file.next = () => {
      reads++;
      return loaded({ servers: { ...SERVERS, [`s${reads}`]: { command: 'node', args: ['x.js'] } } });
    };

    const first = reloader.reload('watch');
    await vi.waitFor(() => expect(servers).toHaveBeenCalledTimes(1));
    const second = reloader.reload('watch');
    const third = reloader.reload('signal');
    expect(second).toBe(third);
    release();
    await first;
    const outcome = await second;
    expect(reads).toBe(2);
    expect(outcome.servers).toEqual({ added: ['s2'], removed: ['s1'], changed: [] });
  });
});
