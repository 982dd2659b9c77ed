import { describe, expect, it } from 'vitest';
import { listenForCallback } from './oauth-login.js';

describe('the login callback page', () => {
  // Regression ("Hardening, round two"): the error page echoes `error_description` as text/plain
  // without `nosniff`, so a browser could sniff a forged description into HTML.
  it('answers every page as text a browser never sniffs into a document that runs anything', async () => {
    const callback = await listenForCallback('s1', 10_000);
    callback.code.catch(() => {});
    try {
      const forged = `${callback.redirectUrl}?state=s1&error=x&error_description=${encodeURIComponent('<script>alert(1)</script>')}`;
      for (const url of [
        forged,
        `${callback.redirectUrl}?state=other`,
        new URL('/x', callback.redirectUrl).href,
      ]) {
        const answer = await fetch(url);
        await answer.text();
        expect(answer.headers.get('x-content-type-options'), url).toBe('nosniff');
        if (answer.status !== 404) {
          expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
          expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
        }
      }
    } finally {
      callback.close();
    }
  });
});
