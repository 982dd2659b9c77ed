import { existsSync } from 'node:fs';

/** Where Debian's `chromium` package (or a `CHROMIUM_PATH` override) puts the browser. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium binary browser tests drive with `playwright-core`, if one is installed. */
export const CHROMIUM: string | undefined = CANDIDATES.find(
  (candidate): candidate is string => candidate !== undefined && candidate !== '' && existsSync(candidate),
);

/** The suffix of a browser test's name: ` (skipped: chromium is not installed…)`, or nothing. */
export const unlessChromium: string = CHROMIUM
  ? ''
  : ' (skipped: chromium is not installed; `apt-get install chromium`, see .ci/run)';

/**
 * Browser-context options that render clock times at their widest: US English, in a time zone
 * where it is now between 10 PM and midnight ("10:04:05 PM"). A layout judged at 9 AM has one
 * character less to fit in every time it shows; with these the same test judges it at its worst
 * whatever the hour of the run (a narrow page once overflowed only from 10 o'clock on).
 */
export function widestClock(): { locale: string; timezoneId: string } {
  // Etc/GMT-N is N hours east of UTC (the sign is POSIX's, inverted); they run from -14 to +12.
  const east = (((22 - new Date().getUTCHours()) % 24) + 24) % 24;
  const offset = east > 14 ? east - 24 : east;
  return {
    locale: 'en-US',
    timezoneId: offset === 0 ? 'Etc/UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`,
  };
}
