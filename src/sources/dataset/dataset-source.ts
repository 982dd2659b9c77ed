import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { normalizeTags } from '../../foundation/model/tags.js';
import type { JsonSchema, Tool } from '../../foundation/model/tool.js';
import type { ToolBackend } from '../../foundation/ports/tool-backend.js';
import { LOCAL_DRIVER } from '../local/local-driver.js';

/** One line of a benchmark's `tools.jsonl`. */
export interface DatasetTool {
  id: string;
  name: string;
  namespace?: string;
  category?: string;
  description?: string;
  input_schema?: JsonSchema | null;
}

/** One line of a benchmark's `queries.jsonl`. */
export interface DatasetQuery {
  id: string;
  query: string;
  relevant: string[];
}

/** A tool-retrieval dataset: tools to index and labelled queries. */
export interface Dataset {
  tools: DatasetTool[];
  queries: DatasetQuery[];
}

/**
 * Reads a dataset folder (`tools.jsonl` + `queries.jsonl`, or another queries file). A malformed
 * line is `config_invalid` naming the file and line.
 */
export async function loadDataset(dir: string, queriesFile?: string): Promise<Dataset> {
  const tools = await readJsonl(path.join(dir, 'tools.jsonl'), (value, where) => {
    const v = value as Partial<DatasetTool>;
    if (typeof v.id !== 'string' || typeof v.name !== 'string')
      throw bad(where, 'needs string "id" and "name"');
    return v as DatasetTool;
  });
  const queries = await loadQueries(path.resolve(dir, queriesFile ?? 'queries.jsonl'));
  return { tools, queries };
}

/** Reads a labelled queries file (`{id, query, relevant}` per line). */
export function loadQueries(file: string): Promise<DatasetQuery[]> {
  return readJsonl(file, (value, where) => {
    const v = value as Partial<DatasetQuery>;
    if (typeof v.id !== 'string' || typeof v.query !== 'string' || !Array.isArray(v.relevant)) {
      throw bad(where, 'needs string "id", string "query" and array "relevant"');
    }
    return { id: v.id, query: v.query, relevant: v.relevant.map(String) };
  });
}

/**
 * Turns dataset tools into catalog entries, as a source would: names and namespaces are made valid
 * (the datasets have spaces and slashes in them), the original name is kept as the title, and each
 * tool's dataset id is kept so rankings can be reported in the dataset's own ids. Dataset tools
 * cannot be run.
 */
export function datasetEntries(tools: readonly DatasetTool[]): {
  entries: CatalogEntry[];
  datasetIdOf: Map<string, string>;
} {
  const entries: CatalogEntry[] = [];
  const datasetIdOf = new Map<string, string>();
  for (const source of tools) {
    const namespace = slug(source.namespace ?? '') || 'dataset';
    let name = slug(source.name) || `tool-${source.id}`;
    if (datasetIdOf.has(`${namespace}:${name}`)) name = `${name}-${slug(source.id)}`;
    const id = `${namespace}:${name}`;
    const tool: Tool = {
      id,
      namespace,
      name,
      title: source.name,
      description: source.description ?? '',
      inputSchema: source.input_schema ?? { type: 'object' },
      annotations: {},
      tags: normalizeTags(source.category ? [source.category] : []),
      metadata: {
        ...(source.category ? { category: source.category } : {}),
        extra: { datasetId: source.id },
      },
      examples: [],
      // Benchmark tools stand for tools a user configured: not checked by the trust gate.
      origin: { sourceId: 'dataset', kind: LOCAL_DRIVER.kind, originalName: source.name },
    };
    datasetIdOf.set(id, source.id);
    entries.push({ tool, backend: NOT_RUNNABLE });
  }
  return { entries, datasetIdOf };
}

const NOT_RUNNABLE: ToolBackend = {
  async execute(tool) {
    throw new GatewayError(
      'execution_failed',
      `${tool.id} is a dataset tool (for search evaluation) and cannot be run`,
    );
  },
};

/** A namespace/name-safe form: letters, digits, `_`, `.`, `-`; other runs become `-`. */
function slug(text: string): string {
  return text
    .trim()
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[-_.]+|[-.]+$/g, '')
    .slice(0, 60);
}

async function readJsonl<T>(file: string, check: (value: unknown, where: string) => T): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new GatewayError('config_invalid', `Cannot read ${file}: ${(error as Error).message}`);
  }
  const out: T[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw bad(where, `not JSON (${(error as Error).message})`);
    }
    out.push(check(value, where));
  }
  return out;
}

function bad(where: string, problem: string): GatewayError {
  return new GatewayError('config_invalid', `${where}: ${problem}`);
}
