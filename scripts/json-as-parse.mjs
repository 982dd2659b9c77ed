/**
 * An esbuild plugin of the CLI bundle (`bundle-cli.mjs`): the gateway's own JSON modules
 * (`dist/**.json`, e.g. the poisoning detector's intent model, 110 KB) bundled as
 * `JSON.parse("…")` rather than as an object literal.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * esbuild turns an imported JSON file into a JavaScript object literal, which V8 parses and
 * compiles as code while the chunk loads; `JSON.parse` of a string literal takes the JSON parser's
 * fast path (about a third of the time for the intent model). Only the default export is kept,
 * which is how the gateway imports its JSON (`import model from './x.json' with { type: 'json' }`,
 * as Node itself allows).
 */
export const jsonAsParse = {
  name: 'json-as-parse',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].+\.json$/ }, async (args) => {
      // A package's JSON may be `require`d from CommonJS, which must get the object itself, not a
      // module with a default export (ajv's meta-schemas in `node_modules/ajv/dist/refs/` are).
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      // Parsed here first, so a malformed file fails the build rather than the gateway's start.
      const compact = JSON.stringify(JSON.parse(text));
      return { contents: `export default JSON.parse(${JSON.stringify(compact)});`, loader: 'js' };
    });
  },
};
