import { z } from 'zod';

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A config string that must be an absolute http(s) URL. */
export const httpUrl = () => z.string().refine(isHttpUrl, { error: 'must be an http:// or https:// URL' });
