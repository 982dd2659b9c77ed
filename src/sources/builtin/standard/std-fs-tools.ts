import { createHash, randomUUID } from 'node:crypto';
import { open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import { defineTool, type ToolDefinition } from '../../local/define-tool.js';
import { inputError } from '../input-error.js';
import { ConfinedRoot } from './confined-path.js';

/** `expected_sha256` value that says "the file must not exist yet" (creating needs no hash either). */

/** The `path` argument of the file tools: relative to the root (`confined-path.ts` checks it). */
const FILE_PATH = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description: 'File path relative to the root.',
} as const;

export const NEW_FILE_SENTINEL = 'new';
/** Largest file `std:read_file` returns (bytes); larger ones are cut and say `truncated`. */
const MAX_READ_BYTES = 1024 * 1024;
/** Largest content `std:write_file` accepts (characters). */
const MAX_WRITE_CHARS = 4 * 1024 * 1024;
/** Entries `std:list_dir` returns at most. */
const MAX_ENTRIES = 1000;

/** Options of the standard file tools (`tools.standard.fs`). */
export interface StdFsOptions {
  /** The directory every path is confined to (absolute). */
  root: string;
  /** Whether `std:write_file` is offered. */
  write: boolean;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * `std:read_file`, `std:list_dir` and (with `write: true`) `std:write_file`, confined to one root.
 * A write must name the SHA-256 of the content it replaces (`expected_sha256`, as `std:read_file`
 * returns it): an agent cannot overwrite what it has not read, nor what changed since.
 */
export function stdFsTools(options: StdFsOptions): ToolDefinition[] {
  const root = new ConfinedRoot(options.root);
  const tools = [readFileTool(root), listDirTool(root)];
  if (options.write) tools.push(writeFileTool(root));
  return tools;
}

function readFileTool(root: ConfinedRoot): ToolDefinition {
  return defineTool<{ path: string; encoding?: 'utf8' | 'base64' }>({
    namespace: 'std',
    name: 'read_file',
    title: 'Read a file',
    description:
      'Reads a file under the configured root (paths are relative to it; nothing outside it can be ' +
      'read, through ".." or symbolic links). Returns { path, size, sha256, encoding, content, ' +
      'truncated }; pass sha256 as expected_sha256 to std:write_file to change the file. Files over ' +
      '1 MiB are cut.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: FILE_PATH,
        encoding: {
          type: 'string',
          enum: ['utf8', 'base64'],
          description: 'Default utf8; base64 for binary files.',
        },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['files'],
    handler: async (args) => {
      const real = await root.existing(args.path);
      const info = await stat(real);
      if (!info.isFile()) throw inputError('/path', `"${args.path}" is not a file`);
      const data = await readFile(real);
      const shown = data.subarray(0, MAX_READ_BYTES);
      const encoding = args.encoding ?? 'utf8';
      return {
        path: args.path,
        size: data.length,
        sha256: sha256(data),
        encoding,
        content: shown.toString(encoding),
        truncated: data.length > MAX_READ_BYTES,
      };
    },
  });
}

function listDirTool(root: ConfinedRoot): ToolDefinition {
  return defineTool<{ path?: string }>({
    namespace: 'std',
    name: 'list_dir',
    title: 'List a directory',
    description:
      'Lists a directory under the configured root (default the root itself): entries ' +
      '[{ name, type: file|directory|symlink|other, size }] sorted by name, at most 1000.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        path: {
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          description: 'Directory relative to the root; default ".".',
        },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['files'],
    handler: async (args) => {
      const requested = args.path ?? '.';
      const real = await root.existing(requested);
      if (!(await stat(real)).isDirectory()) throw inputError('/path', `"${requested}" is not a directory`);
      const dirents = (await readdir(real, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      );
      const entries = await Promise.all(
        dirents.slice(0, MAX_ENTRIES).map(async (entry) => {
          const type = entry.isFile()
            ? 'file'
            : entry.isDirectory()
              ? 'directory'
              : entry.isSymbolicLink()
                ? 'symlink'
                : 'other';
          const size =
            type === 'file'
              ? (await stat(path.join(real, entry.name)).catch(() => undefined))?.size
              : undefined;
          return size === undefined ? { name: entry.name, type } : { name: entry.name, type, size };
        }),
      );
      return { path: requested, entries, truncated: dirents.length > MAX_ENTRIES };
    },
  });
}

function writeFileTool(root: ConfinedRoot): ToolDefinition {
  return defineTool<{ path: string; content: string; expected_sha256?: string }>({
    namespace: 'std',
    name: 'write_file',
    title: 'Write a file',
    description:
      'Writes a UTF-8 file under the configured root. To replace an existing file, pass ' +
      'expected_sha256: the sha256 std:read_file returned for it; the write is refused if the file ' +
      `changed since. To create a file, leave expected_sha256 out (or pass "${NEW_FILE_SENTINEL}"); ` +
      'its directory must exist. Returns { path, size, sha256, created }.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'content'],
      properties: {
        path: FILE_PATH,
        content: { type: 'string', maxLength: MAX_WRITE_CHARS, description: 'The whole new content.' },
        expected_sha256: {
          type: 'string',
          pattern: `^([0-9a-f]{64}|${NEW_FILE_SENTINEL})$`,
          description: `SHA-256 (hex) of the current content, or "${NEW_FILE_SENTINEL}" for a file that must not exist.`,
        },
      },
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    tags: ['files'],
    handler: async (args) => {
      const target = await root.target(args.path);
      const expected = args.expected_sha256;
      if (target.exists) {
        if ((await stat(target.path)).isDirectory())
          throw inputError('/path', `"${args.path}" is a directory`);
        if (expected === undefined || expected === NEW_FILE_SENTINEL) {
          throw inputError(
            '/expected_sha256',
            `"${args.path}" exists: pass the sha256 std:read_file returns for it to replace it`,
          );
        }
        const current = sha256(await readFile(target.path));
        if (current !== expected) {
          throw inputError(
            '/expected_sha256',
            `"${args.path}" changed since it was read (its sha256 is not the one given): read it again`,
          );
        }
        // Written beside, then renamed over: a reader never sees half a file.
        const temporary = path.join(
          path.dirname(target.path),
          `.${path.basename(target.path)}.${randomUUID()}.tmp`,
        );
        try {
          await writeFile(temporary, args.content, { flag: 'wx' });
          await rename(temporary, target.path);
        } catch (error) {
          await rm(temporary, { force: true });
          throw error;
        }
      } else {
        if (expected !== undefined && expected !== NEW_FILE_SENTINEL && SHA256.test(expected)) {
          throw inputError(
            '/expected_sha256',
            `"${args.path}" does not exist (any more): read the directory again`,
          );
        }
        // `wx`: fails rather than follow a symlink planted since the check.
        const handle = await open(target.path, 'wx').catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') {
            throw new GatewayError('forbidden', `"${args.path}" appeared while it was being created`, {
              details: { path: args.path },
            });
          }
          throw error;
        });
        try {
          await handle.writeFile(args.content);
        } finally {
          await handle.close();
        }
      }
      return {
        path: args.path,
        size: Buffer.byteLength(args.content),
        sha256: sha256(args.content),
        created: !target.exists,
      };
    },
  });
}
