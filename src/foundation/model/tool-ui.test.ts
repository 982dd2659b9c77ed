import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps';
import { describe, expect, it } from 'vitest';
import {
  isModelVisible,
  LEGACY_UI_RESOURCE_URI_KEY,
  MCP_APP_MIME_TYPE,
  renameToolUiUri,
  toolUiOf,
} from './tool-ui.js';

describe('tool UI (MCP Apps)', () => {
  it('uses the ext-apps constants', () => {
    expect(MCP_APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(LEGACY_UI_RESOURCE_URI_KEY).toBe(RESOURCE_URI_META_KEY);
  });

  it('reads the nested ui object first, then the flat legacy key', () => {
    expect(toolUiOf({ ui: { resourceUri: 'ui://a/b.html', visibility: ['model', 'app'] } })).toEqual({
      resourceUri: 'ui://a/b.html',
      visibility: ['model', 'app'],
    });
    expect(toolUiOf({ 'ui/resourceUri': 'ui://legacy/x' })).toEqual({ resourceUri: 'ui://legacy/x' });
    expect(toolUiOf({ ui: { resourceUri: 'ui://new' }, 'ui/resourceUri': 'ui://old' })).toEqual({
      resourceUri: 'ui://new',
    });
    expect(toolUiOf({ ui: { visibility: ['app'] } })).toEqual({ visibility: ['app'] });
  });

  it('ignores what names no app: no ui, a URI of another scheme, unknown visibility values', () => {
    expect(toolUiOf(undefined)).toBeUndefined();
    expect(toolUiOf({ other: 1 })).toBeUndefined();
    expect(toolUiOf({ ui: { resourceUri: 'https://x/app.html' } })).toBeUndefined();
    expect(toolUiOf({ ui: 'ui://x' })).toBeUndefined();
    expect(toolUiOf({ ui: { visibility: ['app', 'robot', 3] } })).toEqual({ visibility: ['app'] });
  });

  it('hides from the model only a visibility without "model"', () => {
    expect(isModelVisible({})).toBe(true);
    expect(isModelVisible({ ui: { resourceUri: 'ui://x' } })).toBe(true);
    expect(isModelVisible({ ui: { visibility: ['model'] } })).toBe(true);
    expect(isModelVisible({ ui: { visibility: ['app', 'model'] } })).toBe(true);
    expect(isModelVisible({ ui: { visibility: ['app'] } })).toBe(false);
    expect(isModelVisible({ ui: { visibility: [] } })).toBe(false);
  });

  it('renames the nested and the flat resource URI alike, keeping the rest', () => {
    const meta = {
      ui: { resourceUri: 'ui://sm/app.html', visibility: ['model'] },
      'ui/resourceUri': 'ui://sm/app.html',
      other: { kept: true },
    };
    const renamed = renameToolUiUri(meta, (uri) => `${uri}#renamed`);
    expect(renamed).toEqual({
      ui: { resourceUri: 'ui://sm/app.html#renamed', visibility: ['model'] },
      'ui/resourceUri': 'ui://sm/app.html#renamed',
      other: { kept: true },
    });
    expect(meta.ui.resourceUri).toBe('ui://sm/app.html');
    const plain = { ui: { visibility: ['app'] } };
    expect(renameToolUiUri(plain, () => 'changed')).toBe(plain);
  });
});
