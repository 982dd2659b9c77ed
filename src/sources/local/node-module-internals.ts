import { createRequire } from 'node:module';

/**
 * Every use of Node's private `Module` members, in one place (test/architecture/private-members.test.ts
 * refuses them anywhere else). Its canary, `node-module-internals.test.ts`, fails loudly when a
 * Node version changes what is relied on here.
 */

/**
 * The CommonJS resolver: what `require` (and tsx's CommonJS loader) turn a specifier into a file
 * with. `parent` and `options` are Node's own, passed on untouched.
 */
export type CjsResolve = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

/** Node's CommonJS module class, as far as it is used: its resolver (`Module._resolveFilename`). */
interface CjsModule {
  _resolveFilename: CjsResolve;
}

/**
 * Replaces Node's CommonJS resolver with `wrap(original)` for every `require` in the process. The
 * ESM loader's `register` hooks do not see CommonJS loads, and Node has no public resolve hook for
 * them: a resolver of one's own is the only way. `from` is the file URL whose `require` loads
 * `node:module`. Returns the function that puts the previous resolver back.
 */
export function wrapCjsResolver(from: string, wrap: (original: CjsResolve) => CjsResolve): () => void {
  const Module = createRequire(from)('node:module') as CjsModule;
  const original = Module._resolveFilename;
  if (typeof original !== 'function') throw new Error('Module._resolveFilename is not a function');
  const wrapped = wrap(original);
  Module._resolveFilename = wrapped;
  return () => {
    // Only our own wrapper is taken out: a later one wrapping ours stays as it is.
    if (Module._resolveFilename === wrapped) Module._resolveFilename = original;
  };
}
