/**
 * An esbuild plugin of the CLI bundle (`bundle-cli.mjs`): the MCP SDK's JSON Schema validator
 * built when first used rather than when the SDK loads.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The MCP SDK packages (server and client, each with its own copy) evaluate three ajv builds and
 * ajv-formats as they load, for a JSON Schema validator first used when a result is checked
 * against a tool's output schema: some 10 ms each before a stdio client gets its first answer.
 * Their Node shim module (`dist/shimsNode.mjs`) is bundled with its validator replaced by one that
 * requires the package's CommonJS shim (bundled too, evaluated when first required) on its first
 * `getValidator`: the same validator class with the same arguments, built when first needed.
 * Should a later SDK change the shim, the build warns and bundles it unchanged.
 */
export const lazySdkValidator = {
  name: 'lazy-sdk-validator',
  setup(build) {
    const shim = /@modelcontextprotocol[\\/](server|client)[\\/]dist[\\/]shimsNode\.mjs$/;
    build.onLoad({ filter: shim }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const eager = /^import \{ n as AjvJsonSchemaValidator \} from "\.\/ajvProvider-[\w-]+\.mjs";$/m;
      if (!eager.test(source)) {
        return { warnings: [{ text: `${args.path}: validator import not found; bundled unchanged` }] };
      }
      const lazy = `class AjvJsonSchemaValidator {
  constructor(...args) { this.args = args; }
  getValidator(schema) {
    this.real ??= new (require('./shimsNode.cjs').DefaultJsonSchemaValidator)(...this.args);
    return this.real.getValidator(schema);
  }
}`;
      return { contents: source.replace(eager, lazy), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};
