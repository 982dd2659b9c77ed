import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ToolContext, ToolDefinition } from '../local/define-tool.js';
import { createTimeTools } from './time-tools.js';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  progress: () => {},
  log: silentLogger,
  caller: { identity: 'test' },
};

/** One second before New York springs forward on 2024-03-10. */
const FIXED = new Date('2024-03-10T06:59:59.123Z');
const [nowTool, convertTool] = createTimeTools(() => FIXED) as [ToolDefinition, ToolDefinition];

const now = (args: Record<string, unknown>) => nowTool.handler(args, ctx) as Record<string, unknown>;
const convert = (args: Record<string, unknown>) => convertTool.handler(args, ctx) as Record<string, unknown>;

function failure(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('time:now', () => {
  it('has the expected ids', () => {
    expect([nowTool.namespace, nowTool.name, convertTool.name]).toEqual(['time', 'now', 'convert']);
  });

  it('defaults to UTC', () => {
    const result = now({});
    expect(result).toMatchObject({
      iso: '2024-03-10T06:59:59.123+00:00',
      timezone: 'UTC',
      offset: '+00:00',
      epochMs: FIXED.getTime(),
      weekday: 'Sunday',
    });
    expect(result.local).toMatch(/^Sunday, March 10, 2024 at 6:59:59\sAM/);
  });

  it('reads the clock in a zone, with fractional-hour offsets', () => {
    expect(now({ timezone: 'America/New_York' })).toMatchObject({
      iso: '2024-03-10T01:59:59.123-05:00',
      offset: '-05:00',
      weekday: 'Sunday',
    });
    expect(now({ timezone: 'Asia/Kolkata' })).toMatchObject({
      iso: '2024-03-10T12:29:59.123+05:30',
      timezone: 'Asia/Kolkata',
    });
    expect(now({ timezone: 'Asia/Kathmandu' })).toMatchObject({ offset: '+05:45' });
    expect(now({ timezone: 'Pacific/Auckland' })).toMatchObject({ iso: '2024-03-10T19:59:59.123+13:00' });
  });

  it('calls the clock on every run', () => {
    let t = 0;
    const clock = (): Date => {
      t += 1000;
      return new Date(t);
    };
    const [tool] = createTimeTools(clock) as [ToolDefinition];
    expect(tool.handler({}, ctx)).toMatchObject({ epochMs: 1000 });
    expect(tool.handler({}, ctx)).toMatchObject({ epochMs: 2000, iso: '1970-01-01T00:00:02.000+00:00' });
  });

  it('accepts zone names case-insensitively and reports the canonical spelling', () => {
    expect(now({ timezone: 'europe/paris' })).toMatchObject({ timezone: 'Europe/Paris', offset: '+01:00' });
    expect(now({ timezone: 'utc' })).toMatchObject({ timezone: 'UTC' });
  });

  it('uses the locale for the human-readable form only', () => {
    const result = now({ timezone: 'Europe/Berlin', locale: 'de-DE' });
    expect(result.local).toMatch(/^Sonntag, 10\. März 2024 um 07:59:59/);
    expect(result.weekday).toBe('Sunday');
  });

  it('rejects an unknown zone, naming it, and a malformed locale', () => {
    const error = failure(() => now({ timezone: 'Mars/Olympus_Mons' }));
    expect(error.code).toBe('validation_input');
    expect(error.message).toContain('Mars/Olympus_Mons');
    expect(error.details).toMatchObject({ path: '/timezone' });
    expect(failure(() => now({ locale: 'en_US' })).details).toMatchObject({ path: '/locale' });
  });
});

describe('time:convert', () => {
  it('converts an instant with Z into another zone', () => {
    expect(convert({ datetime: '2024-07-04T16:00:00Z', timezone: 'America/New_York' })).toMatchObject({
      iso: '2024-07-04T12:00:00.000-04:00',
      timezone: 'America/New_York',
      offset: '-04:00',
      epochMs: Date.UTC(2024, 6, 4, 16),
      weekday: 'Thursday',
    });
  });

  it('converts an instant with an offset, crossing the date line; defaults to UTC', () => {
    expect(convert({ datetime: '2024-12-31T20:30:15.5-05:00' })).toMatchObject({
      iso: '2025-01-01T01:30:15.500+00:00',
      weekday: 'Wednesday',
    });
    expect(convert({ datetime: '2024-12-31 23:00+0100', timezone: 'Asia/Tokyo' })).toMatchObject({
      iso: '2025-01-01T07:00:00.000+09:00',
    });
  });

  it('reads a wall-clock time in fromTimezone', () => {
    expect(
      convert({ datetime: '2024-11-05T09:00', fromTimezone: 'Europe/Berlin', timezone: 'Asia/Tokyo' }),
    ).toMatchObject({
      iso: '2024-11-05T17:00:00.000+09:00',
      epochMs: Date.UTC(2024, 10, 5, 8),
    });
    // The explicit offset wins over fromTimezone.
    expect(convert({ datetime: '2024-11-05T09:00Z', fromTimezone: 'Europe/Berlin' })).toMatchObject({
      iso: '2024-11-05T09:00:00.000+00:00',
    });
  });

  it('handles daylight-saving transitions: repeated times mean the earlier, skipped ones are rejected', () => {
    expect(convert({ datetime: '2024-11-03T01:30', fromTimezone: 'America/New_York' })).toMatchObject({
      iso: '2024-11-03T05:30:00.000+00:00',
    });
    expect(convert({ datetime: '2024-03-10T03:00', fromTimezone: 'America/New_York' })).toMatchObject({
      iso: '2024-03-10T07:00:00.000+00:00',
    });
    const gap = failure(() => convert({ datetime: '2024-03-10T02:30', fromTimezone: 'America/New_York' }));
    expect(gap.code).toBe('validation_input');
    expect(gap.details?.reason).toMatch(/does not exist in America\/New_York/);
  });

  it('requires an offset or fromTimezone', () => {
    expect(failure(() => convert({ datetime: '2024-03-10T12:00' })).details?.reason).toMatch(/no UTC offset/);
    expect(
      failure(() => convert({ datetime: '2024-03-10T12:00', fromTimezone: 'Nowhere/City' })).details,
    ).toMatchObject({
      path: '/fromTimezone',
    });
  });

  it('validates every field', () => {
    expect(convert({ datetime: '2024-02-29T00:00:00Z' })).toMatchObject({ weekday: 'Thursday' });
    for (const datetime of [
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T12:60:00Z',
      '2024-01-01T12:00:00+24:00',
      '0000-01-01T00:00:00Z',
      'yesterday',
      '2024-01-01',
    ]) {
      const error = failure(() => convert({ datetime }));
      expect(error.code).toBe('validation_input');
      expect(error.details).toMatchObject({ path: '/datetime' });
    }
  });

  it('formats early years with four digits', () => {
    expect(convert({ datetime: '0050-06-15T12:00:00Z' })).toMatchObject({
      iso: '0050-06-15T12:00:00.000+00:00',
    });
  });
});
