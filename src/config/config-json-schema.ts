import { z } from 'zod';
import { isRecord } from '../foundation/util/is-record.js';
import { configSchema } from './config-schema.js';

/** A JSON Schema node, as `z.toJSONSchema` produces and this file patches it. */
export type JsonSchemaNode = { [keyword: string]: unknown };

/** Where the published schema is found: `dist/aperture.schema.json` in the package. */
export const CONFIG_SCHEMA_FILE_NAME = 'aperture.schema.json';

/** Strings the loader turns into numbers and booleans: references, and the values' own spelling. */
const SCALAR_STRING = '^\\s*(\\$\\{(env|secret):[^}]*\\}|-?\\d+(\\.\\d+)?|true|false)\\s*$';

let cached: JsonSchemaNode | undefined;

/**
 * The JSON Schema (draft 2020-12) of the config file as users write it (zod's input side), for
 * editors (`# yaml-language-server: $schema=…`) and `aperture config schema`. zod derives it from
 * the same schema the loader validates with; the patches below put back what preprocessing
 * accepts and zod cannot see: short forms (`exposure: flat`, `callLogs: false`), numbers and
 * booleans written as `${env:…}`, `serverUrl`, and the internal `kind` discriminator dropped.
 */
export function configJsonSchema(): JsonSchemaNode {
  if (cached === undefined) {
    const generated = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
    cached = patchNode(generated) as JsonSchemaNode;
    cached.title = 'Aperture gateway configuration (aperture.yaml)';
    patchShortForms(cached);
  }
  return structuredClone(cached);
}

function patchNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(patchNode);
  if (!isRecord(node)) return node;
  const out: JsonSchemaNode = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, patchNode(v)]));
  const properties = out.properties;
  if (isRecord(properties) && isRecord(properties.kind) && 'const' in properties.kind) {
    // `kind` is derived from `command` / `url` by the loader; users never write it.
    delete properties.kind;
    out.required = (out.required as string[] | undefined)?.filter((key) => key !== 'kind');
    if (isRecord(properties.url) && isRecord(properties.transport)) {
      // Windsurf spells the URL `serverUrl`; either one is required.
      properties.serverUrl = { ...properties.url, description: 'Same as "url" (Windsurf\'s spelling)' };
      out.required = (out.required as string[]).filter((key) => key !== 'url');
      out.anyOf = [{ required: ['url'] }, { required: ['serverUrl'] }];
    }
  }
  if (out.type === 'integer' || out.type === 'number' || out.type === 'boolean') {
    return { anyOf: [out, { type: 'string', pattern: SCALAR_STRING }] };
  }
  return out;
}

function property(root: JsonSchemaNode, ...path: string[]): JsonSchemaNode | undefined {
  let node: unknown = root;
  for (const key of path)
    node = isRecord(node) && isRecord(node.properties) ? node.properties[key] : undefined;
  return isRecord(node) ? node : undefined;
}

function orShortForm(parent: JsonSchemaNode | undefined, key: string, shortForm: JsonSchemaNode): void {
  const properties = parent?.properties;
  if (!isRecord(properties) || !isRecord(properties[key])) return;
  properties[key] = { anyOf: [shortForm, properties[key]] };
}

function patchShortForms(root: JsonSchemaNode): void {
  const exposureModes = property(root, 'exposure', 'mode')?.enum;
  orShortForm(root, 'exposure', { type: 'string', enum: exposureModes });
  const observability = property(root, 'observability');
  orShortForm(observability, 'callLogs', { type: 'boolean' });
  orShortForm(observability, 'metrics', { type: 'boolean' });
  // Writing the cache section turns it on: `enabled` is optional there.
  const cache = property(root, 'cache');
  if (cache !== undefined)
    cache.required = (cache.required as string[] | undefined)?.filter((k) => k !== 'enabled');
  // `servers:` with every entry commented out is null in YAML, and means "none".
  for (const key of ['servers', 'mcpServers']) orShortForm(root, key, { type: 'null' });
  // `policies: [ … ]` is the short form of `policies: { rules: [ … ] }`.
  orShortForm(root, 'policies', { type: 'array', items: property(root, 'policies', 'rules')?.items });
}

/**
 * The keys the config schema allows in the object at `path` (as zod reports it), for "did you
 * mean" hints; empty when the path does not lead to an object with named keys.
 */
export function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let nodes: JsonSchemaNode[] = [cached ?? configJsonSchema()];
  for (const key of path) {
    nodes = nodes.flatMap(branches).flatMap((node) => {
      if (typeof key === 'number') return isRecord(node.items) ? [node.items] : [];
      const named = isRecord(node.properties) ? node.properties[String(key)] : undefined;
      if (isRecord(named)) return [named];
      return isRecord(node.additionalProperties) ? [node.additionalProperties] : [];
    });
  }
  const keys = nodes
    .flatMap(branches)
    .flatMap((node) => (isRecord(node.properties) ? Object.keys(node.properties) : []));
  return [...new Set(keys)];
}

/** A node and the alternatives it combines (`anyOf`, `oneOf`, `allOf`), recursively. */
function branches(node: JsonSchemaNode): JsonSchemaNode[] {
  const nested = ['anyOf', 'oneOf', 'allOf'].flatMap((keyword) => {
    const list = node[keyword];
    return Array.isArray(list) ? list.filter(isRecord).flatMap(branches) : [];
  });
  return [node, ...nested];
}
