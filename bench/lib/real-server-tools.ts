/**
 * The tools of 32 real MCP servers as they list them (test/fixtures/trust/real-servers), as
 * Aperture tools: the catalog the poisoning detector's benchmarks measure on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool } from '../../src/foundation/model/tool.js';
import { ROOT } from './common.js';

export function realServerTools(): Tool[] {
  const entries = JSON.parse(
    readFileSync(path.join(ROOT, 'test/fixtures/trust/real-servers/tools.json'), 'utf8'),
  ) as (Pick<Tool, 'description' | 'inputSchema'> & { id: string; title?: string })[];
  return entries.map(
    (e) =>
      ({
        id: `real:${e.id.replace(/[^a-zA-Z0-9_-]/g, '_')}`,
        name: e.id,
        description: e.description,
        inputSchema: e.inputSchema ?? { type: 'object' },
        ...(e.title === undefined ? {} : { title: e.title }),
      }) as Tool,
  );
}
