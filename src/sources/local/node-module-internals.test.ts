import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wrapCjsResolver } from './node-module-internals.js';

/**
 * Canary: the Node internals `node-module-internals.ts` relies on, checked against the running
 * Node. A failure here means a Node version moved them: fix the adapter, not the callers.
 */
describe('Node Module internals (canary)', () => {
  it('require goes through Module._resolveFilename, and a wrapper of it decides', () => {
    const require = createRequire(import.meta.url);
    const here = fileURLToPath(import.meta.url);
    const asked: string[] = [];
    const restore = wrapCjsResolver(
      import.meta.url,
      (original) =>
        function (this: unknown, request, parent, isMain, options) {
          asked.push(request);
          if (request === 'aperture-canary-virtual') return here;
          return original.call(this, request, parent, isMain, options);
        },
    );
    try {
      expect(require.resolve('aperture-canary-virtual'), 'Module._resolveFilename no longer decides').toBe(
        here,
      );
      // Everything else still resolves as before, through the original resolver.
      expect(require.resolve('vitest')).toMatch(/vitest/);
      expect(asked).toEqual(['aperture-canary-virtual', 'vitest']);
    } finally {
      restore();
    }
    expect(() => require.resolve('aperture-canary-virtual')).toThrow(/Cannot find module/);
  });

  it('refuses loudly when the resolver is not a function', () => {
    const require = createRequire(import.meta.url);
    const Module = require('node:module') as { _resolveFilename: unknown };
    expect(typeof Module._resolveFilename, 'Module._resolveFilename is gone').toBe('function');
  });
});
