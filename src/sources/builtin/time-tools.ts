import type { JsonSchema } from '../../foundation/model/tool.js';
import { defineTool, type ToolDefinition } from '../local/define-tool.js';
import { inputError } from './input-error.js';
import {
  describeInstant,
  resolveLocale,
  resolveZone,
  type WallClock,
  wallClockToEpochMs,
  wallToUtcMs,
} from './zoned-time.js';

interface NowArgs {
  timezone?: string;
  locale?: string;
}

interface ConvertArgs {
  datetime: string;
  timezone?: string;
  fromTimezone?: string;
  locale?: string;
}

/** `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with an optional `Z` or `±HH[:MM]` offset. */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const METADATA = { category: 'time', sideEffect: false, cost: 0, latencyHintMs: 1 } as const;
const TAGS = ['time', 'timezone', 'date', 'clock'];

const timezoneProperty = (description: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 64,
  default: 'UTC',
  description,
});

const localeProperty: JsonSchema = {
  type: 'string',
  minLength: 2,
  maxLength: 35,
  default: 'en-US',
  description:
    'BCP 47 locale for the human-readable `local` field, e.g. "en-GB", "de", "ja-JP". Default en-US.',
};

const OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['iso', 'timezone', 'offset', 'epochMs', 'weekday', 'local'],
  properties: {
    iso: {
      type: 'string',
      description:
        'ISO 8601 local date-time in the zone with milliseconds and offset, e.g. 2024-03-10T09:30:00.000-04:00.',
    },
    timezone: { type: 'string', description: 'The time zone the result is expressed in.' },
    offset: {
      type: 'string',
      pattern: '^[+-]\\d{2}:\\d{2}(:\\d{2})?$',
      description: 'UTC offset in effect, e.g. +05:30.',
    },
    epochMs: {
      type: 'integer',
      description: 'Milliseconds since 1970-01-01T00:00:00Z (the same in every zone).',
    },
    weekday: { type: 'string', description: 'Day of the week in English, e.g. Monday.' },
    local: { type: 'string', description: 'Human-readable date and time in the requested locale.' },
  },
};

/**
 * The time tools, reading the clock through `now` so tests can fix the instant.
 * `time:now` tells the current time in a zone; `time:convert` moves a date-time between zones.
 */
export function createTimeTools(now: () => Date = () => new Date()): ToolDefinition[] {
  const nowTool = defineTool<NowArgs>({
    namespace: 'time',
    name: 'now',
    title: 'Current time in a time zone',
    description:
      'Returns the current date and time in an IANA time zone (default UTC). Use it whenever you ' +
      "need today's date, the current time, the day of the week, or a zone's current UTC offset: " +
      'your own knowledge of the date is unreliable. Returns { iso, timezone, offset, epochMs, ' +
      'weekday, local }.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timezone: timezoneProperty(
          'IANA time zone name, e.g. "Europe/Paris", "America/New_York", "Asia/Tokyo", or "UTC" (default).',
        ),
        locale: localeProperty,
      },
    },
    outputSchema: OUTPUT_SCHEMA,
    annotations: ANNOTATIONS,
    tags: [...TAGS, 'now'],
    // Read-only, yet every call has a new answer: never served from the result cache.
    metadata: { ...METADATA, extra: { cache: false } },
    examples: [
      {
        title: 'Current time in UTC',
        args: {},
        resultHint: '{ iso: "2025-06-01T12:00:00.000+00:00", weekday: "Sunday", … }',
      },
      {
        title: 'Current time in Tokyo, described in Japanese',
        args: { timezone: 'Asia/Tokyo', locale: 'ja-JP' },
        resultHint: 'offset "+09:00"',
      },
    ],
    handler(args) {
      const zone = resolveZone(args.timezone ?? 'UTC', '/timezone');
      return describeInstant(now().getTime(), zone, resolveLocale(args.locale, '/locale'));
    },
  });

  const convertTool = defineTool<ConvertArgs>({
    namespace: 'time',
    name: 'convert',
    title: 'Convert a date-time between time zones',
    description:
      'Converts an ISO 8601 date-time to another IANA time zone: the same instant, shown in the ' +
      'target zone with its offset, weekday and a human-readable form. The input carries its own ' +
      'offset ("2024-03-10T14:00:00Z", "2024-03-10T09:00:00-05:00"), or is a wall-clock time ' +
      '("2024-03-10T09:00") read in `fromTimezone`. Use it to schedule across zones or to read ' +
      'timestamps. Returns { iso, timezone, offset, epochMs, weekday, local }.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['datetime'],
      properties: {
        datetime: {
          type: 'string',
          pattern: ISO_DATE_TIME.source,
          description:
            'ISO 8601 date-time, YYYY-MM-DDTHH:MM[:SS[.sss]] followed by "Z" or an offset like ' +
            '"+02:00"; without an offset, `fromTimezone` is required.',
        },
        timezone: timezoneProperty('Target IANA time zone, e.g. "Asia/Kolkata". Default UTC.'),
        fromTimezone: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description:
            'IANA zone in which to read a `datetime` that has no offset. Ignored when `datetime` has ' +
            'one. A time skipped by a daylight-saving change is rejected; a repeated one means the earlier.',
        },
        locale: localeProperty,
      },
    },
    outputSchema: OUTPUT_SCHEMA,
    annotations: ANNOTATIONS,
    tags: [...TAGS, 'convert'],
    metadata: METADATA,
    examples: [
      {
        title: 'UTC instant in New York',
        args: { datetime: '2024-07-04T16:00:00Z', timezone: 'America/New_York' },
        resultHint: '{ iso: "2024-07-04T12:00:00.000-04:00", weekday: "Thursday", … }',
      },
      {
        title: '9:00 in Berlin, as seen in Tokyo',
        args: { datetime: '2024-11-05T09:00', fromTimezone: 'Europe/Berlin', timezone: 'Asia/Tokyo' },
        resultHint: '{ iso: "2024-11-05T17:00:00.000+09:00", … }',
      },
    ],
    handler(args) {
      const target = resolveZone(args.timezone ?? 'UTC', '/timezone');
      const locale = resolveLocale(args.locale, '/locale');
      return describeInstant(parseDateTime(args.datetime, args.fromTimezone), target, locale);
    },
  });

  return [nowTool, convertTool];
}

/** Epoch milliseconds of an ISO 8601 date-time, with every field range checked. */
function parseDateTime(text: string, fromTimezone: string | undefined): number {
  const match = typeof text === 'string' ? ISO_DATE_TIME.exec(text.trim()) : null;
  if (!match) {
    throw inputError(
      '/datetime',
      'expected an ISO 8601 date-time such as "2024-03-10T14:30:00Z" or "2024-03-10T14:30:00+01:00"',
    );
  }
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offH, offM] = match;
  const wall: WallClock = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
    millisecond: Number((fraction ?? '').padEnd(3, '0').slice(0, 3)),
  };
  checkRanges(wall);
  if (zulu !== undefined) return wallToUtcMs(wall);
  if (sign !== undefined) {
    const hours = Number(offH);
    const minutes = Number(offM ?? 0);
    if (hours > 23 || minutes > 59)
      throw inputError('/datetime', `the offset ${sign}${offH}:${offM ?? '00'} is out of range`);
    const offsetMs = (sign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
    return wallToUtcMs(wall) - offsetMs;
  }
  if (fromTimezone === undefined) {
    throw inputError(
      '/datetime',
      'the date-time has no UTC offset; add one (e.g. "Z" or "+02:00") or give fromTimezone',
    );
  }
  return wallClockToEpochMs(wall, resolveZone(fromTimezone, '/fromTimezone'), '/datetime');
}

function checkRanges(wall: WallClock): void {
  const { year, month, day, hour, minute, second } = wall;
  if (year < 1) throw inputError('/datetime', 'the year must be between 0001 and 9999');
  if (month < 1 || month > 12) throw inputError('/datetime', `month ${month} does not exist`);
  const daysInMonth =
    new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (day < 1 || day > daysInMonth) {
    throw inputError('/datetime', `day ${day} does not exist in month ${month} of ${year}`);
  }
  if (hour > 23 || minute > 59 || second > 59) {
    throw inputError('/datetime', 'the time must be between 00:00:00 and 23:59:59');
  }
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
