import { existsSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapCjsResolver } from './node-module-internals.js';

/** The package's own name: what the README's tool modules import `defineTool` from. */
const SELF = 'aperture-gateway';

/**
 * Packages a tool module may import without installing them, because the README's examples do:
 * resolved from the module first (its own copy wins), from the gateway's dependencies otherwise.
 */
const FALLBACKS = ['zod'];

/**
 * A module resolve hook, run on Node's loader thread (hence plain JavaScript in a data: URL, which
 * needs no file and no build step). `aperture-gateway` always resolves to the running gateway's
 * package — a tool module written anywhere gets the `defineTool` of the gateway that loads it,
 * never a second copy — and a fallback package the module cannot resolve itself resolves as the
 * gateway would.
 */
const HOOK = `
let parentURL;
let self;
let fallbacks;
export function initialize(data) {
  parentURL = data.parentURL;
  self = data.self;
  fallbacks = new Set(data.fallbacks);
}
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
export async function resolve(specifier, context, nextResolve) {
  const name = packageOf(specifier);
  if (name === self) return nextResolve(specifier, { ...context, parentURL });
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (fallbacks.has(name) && context.parentURL !== parentURL) {
      return nextResolve(specifier, { ...context, parentURL });
    }
    throw error;
  }
}
`;

let registered = false;

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]) ?? specifier;
}

/** The file `aperture-gateway` names: the `main` of the package `from` lies in. */
function selfEntry(from: string): string | undefined {
  let dir = path.dirname(fileURLToPath(from));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, main } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; main?: string };
      if (name === SELF) return path.join(dir, main ?? 'index.js');
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The same for `require`: tsx loads a TypeScript module outside an ESM package (no
 * `"type": "module"` nearby, the common case for a tools folder) as CommonJS, which the ESM hook
 * does not see. Node 20.19+ `require`s the package's ES modules directly.
 */
function patchCommonJs(parentURL: string): void {
  const require = createRequire(parentURL);
  const entry = selfEntry(parentURL);
  wrapCjsResolver(
    parentURL,
    (original) =>
      function (this: unknown, request, parent, isMain, options) {
        const name = packageOf(request);
        if (name === SELF && entry !== undefined && request === SELF) return entry;
        try {
          return original.call(this, request, parent, isMain, options);
        } catch (error) {
          if (FALLBACKS.includes(name)) return require.resolve(request);
          throw error;
        }
      },
  );
}

/**
 * Makes `import … from 'aperture-gateway'` (and the fallback packages) resolvable for tool modules
 * anywhere on disk, outside the package and without a node_modules of their own. Idempotent.
 * `parentURL` is a file inside the gateway package: Node resolves the package's own name from
 * there by self-reference (its package.json `exports`).
 */
export function registerPackageResolution(parentURL: string = import.meta.url): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`, {
    data: { parentURL, self: SELF, fallbacks: FALLBACKS },
  });
  patchCommonJs(parentURL);
}
