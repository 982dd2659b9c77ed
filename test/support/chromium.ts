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
