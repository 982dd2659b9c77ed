import type { LoggingLevel } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { closableChannel } from '../../../test/support/closable-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { SharedConnectionState } from './shared-connection-state.js';

const session = closableChannel;

function setup(options: { connected?: boolean; fail?: boolean; log?: Logger } = {}) {
  const sent: [string, Record<string, unknown>][] = [];
  const state = { connected: options.connected ?? true, fail: options.fail ?? false };
  const shared = new SharedConnectionState({
    send: async (method, params) => {
      if (state.fail) throw new Error('server "s" is unavailable');
      sent.push([method, params]);
      return {};
    },
    connected: () => state.connected,
    log: options.log ?? silentLogger,
  });
  return { shared, sent, state };
}

/** Lets background sends (a session closing, `restore`) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SharedConnectionState: subscriptions', () => {
  it('sends one resources/subscribe for the first session and one unsubscribe for the last', async () => {
    const { shared, sent } = setup();
    await shared.subscription('file:///a', true);
    await shared.subscription('file:///a', true);
    expect(sent).toEqual([['resources/subscribe', { uri: 'file:///a' }]]);
    expect(shared.subscribers('file:///a')).toBe(2);
    await shared.subscription('file:///a', false);
    expect(sent).toHaveLength(1);
    await shared.subscription('file:///a', false);
    expect(sent).toEqual([
      ['resources/subscribe', { uri: 'file:///a' }],
      ['resources/unsubscribe', { uri: 'file:///a' }],
    ]);
    expect(shared.subscribers('file:///a')).toBe(0);
  });

  it('counts each URI apart, and an unsubscribe nobody held sends nothing and counts nothing', async () => {
    const { shared, sent } = setup();
    await shared.subscription('file:///b', false);
    expect(sent).toEqual([]);
    expect(shared.subscribers('file:///b')).toBe(0);
    await shared.subscription('file:///a', true);
    await shared.subscription('file:///b', true);
    expect(sent.map(([, params]) => params.uri)).toEqual(['file:///a', 'file:///b']);
  });

  it('keeps the count when the server is down, so the subscription is restored on reconnect', async () => {
    const { shared, sent, state } = setup({ fail: true });
    await expect(shared.subscription('file:///a', true)).rejects.toThrow(/unavailable/);
    expect(shared.subscribers('file:///a')).toBe(1);
    state.fail = false;
    const direct: [string, Record<string, unknown>][] = [];
    shared.restore(async (method, params) => void direct.push([method, params]));
    expect(direct).toEqual([['resources/subscribe', { uri: 'file:///a' }]]);
    expect(sent).toEqual([]);
  });

  it('logs a re-subscription the new connection refuses, and goes on with the others', async () => {
    const warnings: unknown[] = [];
    const log = { ...silentLogger, warn: (obj: object, msg?: string) => void warnings.push({ ...obj, msg }) };
    const { shared } = setup({ log });
    await shared.subscription('file:///a', true);
    await shared.subscription('file:///b', true);
    const asked: unknown[] = [];
    shared.restore(async (_method, params) => {
      asked.push(params.uri);
      if (params.uri === 'file:///a') throw new Error('no such resource');
    });
    await settle();
    expect(asked).toEqual(['file:///a', 'file:///b']);
    expect(warnings).toEqual([
      { uri: 'file:///a', err: 'Error: no such resource', msg: 're-subscribing failed' },
    ]);
  });
});

describe('SharedConnectionState: log level', () => {
  it('runs the connection at the most verbose level any session asked for, sending only changes', async () => {
    const { shared, sent } = setup();
    const a = session('a');
    const b = session('b');
    await shared.setLogLevel(a, 'error');
    await shared.setLogLevel(b, 'info');
    await shared.setLogLevel(b, 'info');
    await shared.setLogLevel(a, 'warning');
    expect(shared.mergedLevel()).toBe('info');
    expect(sent).toEqual([
      ['logging/setLevel', { level: 'error' }],
      ['logging/setLevel', { level: 'info' }],
    ]);
  });

  it('falls back to the remaining sessions’ level when the most verbose session closes', async () => {
    const { shared, sent } = setup();
    const a = session('a');
    const b = session('b');
    await shared.setLogLevel(a, 'warning');
    await shared.setLogLevel(b, 'debug');
    b.close();
    await settle();
    expect(shared.mergedLevel()).toBe('warning');
    expect(sent.map(([, params]) => params.level)).toEqual(['warning', 'debug', 'warning']);
    // The last session leaving sends nothing: there is no level anyone asked for.
    a.close();
    await settle();
    expect(shared.mergedLevel()).toBeUndefined();
    expect(sent).toHaveLength(3);
  });

  it('sends nothing while disconnected, then sends the merged level when a connection is restored', async () => {
    const { shared, sent, state } = setup({ connected: false });
    await shared.setLogLevel(session('a'), 'notice');
    expect(sent).toEqual([]);
    state.connected = true;
    shared.restore(async () => {});
    await settle();
    expect(sent).toEqual([['logging/setLevel', { level: 'notice' }]]);
  });

  it('sends the level again on every new connection (the new one knows nothing of it)', async () => {
    const { shared, sent } = setup();
    await shared.setLogLevel(session('a'), 'debug');
    shared.restore(async () => {});
    await settle();
    expect(sent.map(([, params]) => params.level)).toEqual(['debug', 'debug']);
  });

  it('sends a level again after a send that failed (it was not applied)', async () => {
    const { shared, sent, state } = setup({ fail: true });
    const a = session('a');
    await expect(shared.setLogLevel(a, 'info')).rejects.toThrow(/unavailable/);
    state.fail = false;
    await shared.setLogLevel(a, 'info');
    expect(sent).toEqual([['logging/setLevel', { level: 'info' }]]);
  });

  it('orders every MCP level from most to least verbose', () => {
    const { shared } = setup();
    const levels: LoggingLevel[] = [
      'emergency',
      'alert',
      'critical',
      'error',
      'warning',
      'notice',
      'info',
      'debug',
    ];
    levels.forEach((level, i) => void shared.setLogLevel(session(String(i)), level).catch(() => {}));
    expect(shared.mergedLevel()).toBe('debug');
  });
});
