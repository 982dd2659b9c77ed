import type { McpUiToolMeta, McpUiToolVisibility } from '@modelcontextprotocol/ext-apps';

/**
 * The MIME type of an MCP App's HTML resource (SEP-1865; `RESOURCE_MIME_TYPE` of
 * `@modelcontextprotocol/ext-apps`, whose runtime entry is a whole app bridge — the value is
 * repeated here and a test holds it equal to the package's).
 */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The `_meta` key of a tool's app (`_meta.ui`: `resourceUri`, `visibility`). */
export const TOOL_UI_META_KEY = 'ui';

/** The deprecated flat `_meta` key of a tool's app resource (`RESOURCE_URI_META_KEY` of ext-apps). */
export const LEGACY_UI_RESOURCE_URI_KEY = 'ui/resourceUri';

/** The scheme of MCP App resources: hosts render only `ui://` resources. */
export const UI_URI_SCHEME = 'ui://';

/** Who may see and call a tool with an app: the model, the app, or both (the default). */
export type ToolVisibility = McpUiToolVisibility;

/** What a tool's `_meta` says about its MCP App, read once when the tool is catalogued. */
export interface ToolUi {
  /** The app's `ui://` resource, in the server's own form. */
  resourceUri?: string;
  /** Absent: `["model", "app"]`. */
  visibility?: ToolVisibility[];
}

/**
 * The app of a tool's `_meta`: the nested `ui` object (SEP-1865), else the deprecated flat
 * `ui/resourceUri` key, as hosts read them (`getToolUiResourceUri` of ext-apps). A resource URI
 * that is not `ui://` names no app a host would render, and is left out; an unknown visibility
 * value is dropped rather than read as "visible to nobody". Undefined when the tool has no app.
 */
export function toolUiOf(meta: Record<string, unknown> | undefined): ToolUi | undefined {
  if (meta === undefined) return undefined;
  const nested: Partial<Record<keyof McpUiToolMeta, unknown>> = isRecord(meta[TOOL_UI_META_KEY])
    ? meta[TOOL_UI_META_KEY]
    : {};
  const ui: ToolUi = {};
  const uri = typeof nested.resourceUri === 'string' ? nested.resourceUri : meta[LEGACY_UI_RESOURCE_URI_KEY];
  if (typeof uri === 'string' && uri.startsWith(UI_URI_SCHEME)) ui.resourceUri = uri;
  if (Array.isArray(nested.visibility)) {
    ui.visibility = nested.visibility.filter((v): v is ToolVisibility => v === 'model' || v === 'app');
  }
  return ui.resourceUri === undefined && ui.visibility === undefined ? undefined : ui;
}

/**
 * True unless the tool's app says the model must not see it (`visibility` without `"model"`):
 * such a tool is left out of what the model is shown — flat `tools/list`, search, the listings
 * of the metatools — and stays callable by name, for the app calls it through the host.
 */
export function isModelVisible(tool: { ui?: ToolUi | undefined }): boolean {
  const visibility = tool.ui?.visibility;
  return visibility === undefined || visibility.includes('model');
}

/**
 * A tool's `_meta` with its app's resource URI renamed by `rename` — the nested and the flat
 * key alike, so a host reading either reaches the same resource. The same object when there is
 * nothing to rename: the common case costs a property lookup, not a copy.
 */
export function renameToolUiUri(
  meta: Record<string, unknown>,
  rename: (uri: string) => string,
): Record<string, unknown> {
  const nested = isRecord(meta[TOOL_UI_META_KEY]) ? meta[TOOL_UI_META_KEY] : undefined;
  const flat = meta[LEGACY_UI_RESOURCE_URI_KEY];
  const nestedUri = typeof nested?.resourceUri === 'string' ? nested.resourceUri : undefined;
  if (nestedUri === undefined && typeof flat !== 'string') return meta;
  const renamed: Record<string, unknown> = { ...meta };
  if (nestedUri !== undefined) renamed[TOOL_UI_META_KEY] = { ...nested, resourceUri: rename(nestedUri) };
  if (typeof flat === 'string') renamed[LEGACY_UI_RESOURCE_URI_KEY] = rename(flat);
  return renamed;
}

/** A `{…}` (foundation/util's `isRecord`, which model/ cannot import: util imports model). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
