import { readFileSync } from 'node:fs';

/** This package's name and version, read once from its package.json. */
export const PACKAGE_INFO: { name: string; version: string } = (() => {
  const raw = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return { name: 'aperture', version: raw.version };
})();
