import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { Tool } from '../../foundation/tool.js';
import { FlatNaming } from './flat-naming.js';
import type { Metatool } from './metatool.js';

export type ExposureMode = 'metatools' | 'flat' | 'auto';

export interface ExposureOptions {
  mode: ExposureMode;
  /** auto: tools are listed directly while their schemas cost at most this many tokens. */
  budgetTokens: number;
}

/** What `tools/list` shows and how a called name maps back to a tool id. */
export interface ExposureView {
  tools: McpTool[];
  /** flat name → tool id, for the tools listed directly. */
  direct: Map<string, string>;
  metatools: boolean;
}

/**
 * Computes the exposure of a scope (docs/DESIGN.md §4): metatools only, every tool flat, or auto — the
 * metatools plus every tool directly while that is cheaper than searching, judged by an estimate
 * of the listed tools' tokens (JSON characters / 4) against a budget. Cached per catalog version.
 */
export class Exposure {
  private cached: { version: number; view: ExposureView } | undefined;

  private readonly naming: FlatNaming;
  private readonly extra: readonly Metatool[];

  constructor(
    private readonly scope: ToolScope,
    private readonly metatools: readonly Metatool[],
    private readonly options: ExposureOptions,
    more: { naming?: FlatNaming; extra?: readonly Metatool[] } = {},
  ) {
    this.naming = more.naming ?? new FlatNaming();
    this.extra = more.extra ?? [];
  }

  view(): ExposureView {
    const version = this.scope.version;
    if (this.cached?.version === version) return this.cached.view;
    const view = this.compute();
    this.cached = { version, view };
    return view;
  }

  private compute(): ExposureView {
    const extra = this.extra.map(metatoolEntry);
    const meta = [...this.metatools.map(metatoolEntry), ...extra];
    if (this.options.mode === 'metatools') return { tools: meta, direct: new Map(), metatools: true };
    const direct = new Map<string, string>();
    const flat: McpTool[] = [];
    const reserved = new Set(extra.map((e) => e.name));
    for (const [name, tool] of this.naming.assign(this.scope.tools())) {
      if (reserved.has(name)) continue;
      direct.set(name, tool.id);
      flat.push(flatEntry(tool, name));
    }
    if (this.options.mode === 'flat') return { tools: [...extra, ...flat], direct, metatools: false };
    if (estimateTokens(flat) <= this.options.budgetTokens) {
      return { tools: [...meta, ...flat], direct, metatools: true };
    }
    return { tools: meta, direct: new Map(), metatools: true };
  }
}

/** Rough token count of tool entries as a model would read them. */
export function estimateTokens(entries: readonly McpTool[]): number {
  let chars = 0;
  for (const entry of entries) chars += JSON.stringify(entry).length;
  return Math.ceil(chars / 4);
}

function metatoolEntry(m: Metatool): McpTool {
  const entry: McpTool = {
    name: m.name,
    title: m.title,
    description: m.description,
    inputSchema: m.inputSchema as McpTool['inputSchema'],
  };
  // No hints means the MCP defaults (a tool that may change anything): not worth sending `{}` every turn.
  if (Object.keys(m.annotations).length > 0) entry.annotations = m.annotations;
  return entry;
}

function flatEntry(tool: Tool, name: string): McpTool {
  const entry: McpTool = {
    name,
    description: tool.description,
    inputSchema: tool.inputSchema as McpTool['inputSchema'],
    annotations: tool.annotations,
  };
  if (tool.title !== undefined) entry.title = tool.title;
  if (tool.outputSchema !== undefined) entry.outputSchema = tool.outputSchema as McpTool['outputSchema'];
  return entry;
}
