import { inputError } from './input-error.js';

/** One instant as seen in one time zone: the shared result of `time:now` and `time:convert`. */
export interface ZonedTime {
  /** ISO 8601 local date-time with milliseconds and the zone's numeric offset. */
  iso: string;
  timezone: string;
  /** `+HH:MM` (or `+HH:MM:SS` for historical offsets that have seconds). */
  offset: string;
  epochMs: number;
  /** English weekday name, so programs can rely on it whatever the locale. */
  weekday: string;
  /** Human-readable date and time in the requested locale. */
  local: string;
}

/** A wall-clock reading, as written in an ISO 8601 date-time. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** A validated IANA zone: the name to report and a formatter reading wall clocks in it. */
export interface Zone {
  name: string;
  parts: Intl.DateTimeFormat;
}

const zones = new Map<string, Zone>();

/**
 * Resolves an IANA time zone name (case-insensitive; `UTC` too) or throws `validation_input`
 * naming it. The reported name is the caller's own spelling unless it differs from the canonical
 * one only by case: ICU canonicalises some zones to old aliases (Asia/Kolkata → Asia/Calcutta).
 */
export function resolveZone(input: string, path: string): Zone {
  const key = input.trim();
  const cached = zones.get(key);
  if (cached) return cached;
  let parts: Intl.DateTimeFormat;
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: key,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'long',
    });
  } catch {
    throw inputError(
      path,
      `unknown time zone "${input}"; use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"`,
    );
  }
  const resolved = parts.resolvedOptions().timeZone;
  const zone = { name: resolved.toLowerCase() === key.toLowerCase() ? resolved : key, parts };
  if (zones.size < 1000) zones.set(key, zone);
  return zone;
}

/** Checks a BCP 47 locale tag; `undefined` means the default, en-US. */
export function resolveLocale(locale: string | undefined, path: string): string {
  if (locale === undefined) return 'en-US';
  try {
    const [canonical] = Intl.getCanonicalLocales(locale);
    if (canonical) return canonical;
  } catch {
    // Falls through to the error below.
  }
  throw inputError(path, `"${locale}" is not a valid BCP 47 locale tag (e.g. "en-US", "fr", "ja-JP")`);
}

/** Describes `epochMs` in `zone`, with the human-readable form in `locale`. */
export function describeInstant(epochMs: number, zone: Zone, locale: string): ZonedTime {
  const { wall, weekday } = wallClockAt(epochMs, zone);
  const offsetSeconds = Math.round((wallToUtcMs(wall) - epochMs) / 1000);
  const offset = formatOffset(offsetSeconds);
  const local = new Intl.DateTimeFormat(locale, {
    timeZone: zone.parts.resolvedOptions().timeZone,
    dateStyle: 'full',
    timeStyle: 'long',
  }).format(new Date(epochMs));
  return { iso: `${formatWall(wall)}${offset}`, timezone: zone.name, offset, epochMs, weekday, local };
}

/**
 * The instant a wall-clock reading denotes in `zone`. A reading repeated by a backward shift
 * (autumn) gives the earlier instant; one skipped by a forward shift (spring) is rejected.
 */
export function wallClockToEpochMs(wall: WallClock, zone: Zone, path: string): number {
  const asUtc = wallToUtcMs(wall);
  const day = 86_400_000;
  // Offsets a day either side bracket any transition near the reading; zones never change twice a day.
  const candidates = [offsetMsAt(asUtc - day, zone), offsetMsAt(asUtc + day, zone)]
    .map((offset) => asUtc - offset)
    .filter((instant) => wallToUtcMs(wallClockAt(instant, zone).wall) === asUtc)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first === undefined) {
    throw inputError(
      path,
      `${formatWall(wall)} does not exist in ${zone.name} (clocks skip it at a daylight-saving change)`,
    );
  }
  return first;
}

/** Milliseconds since the epoch of a wall clock read as UTC (years 0-99 included). */
export function wallToUtcMs(wall: WallClock): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond);
  return date.getTime();
}

function offsetMsAt(epochMs: number, zone: Zone): number {
  return wallToUtcMs(wallClockAt(epochMs, zone).wall) - epochMs;
}

function wallClockAt(epochMs: number, zone: Zone): { wall: WallClock; weekday: string } {
  const fields: Record<string, string> = {};
  for (const part of zone.parts.formatToParts(new Date(epochMs))) fields[part.type] = part.value;
  const num = (type: string): number => Number(fields[type] ?? Number.NaN);
  const wall: WallClock = {
    year: num('year'),
    month: num('month'),
    day: num('day'),
    hour: num('hour'),
    minute: num('minute'),
    second: num('second'),
    millisecond: ((epochMs % 1000) + 1000) % 1000,
  };
  return { wall, weekday: fields.weekday ?? '' };
}

function formatWall(wall: WallClock): string {
  const p = (value: number, width = 2): string => String(value).padStart(width, '0');
  const date = `${p(wall.year, 4)}-${p(wall.month)}-${p(wall.day)}`;
  return `${date}T${p(wall.hour)}:${p(wall.minute)}:${p(wall.second)}.${p(wall.millisecond, 3)}`;
}

function formatOffset(totalSeconds: number): string {
  const sign = totalSeconds < 0 ? '-' : '+';
  const abs = Math.abs(totalSeconds);
  const p = (value: number): string => String(value).padStart(2, '0');
  const hhmm = `${sign}${p(Math.floor(abs / 3600))}:${p(Math.floor((abs % 3600) / 60))}`;
  return abs % 60 === 0 ? hhmm : `${hhmm}:${p(abs % 60)}`;
}
