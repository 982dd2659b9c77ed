import { describe, expect, it } from 'vitest';
import { ResourceNaming } from './resource-naming.js';

describe('ResourceNaming', () => {
  const naming = new ResourceNaming([
    { namespace: 'alpha', prefix: true },
    { namespace: 'my server', prefix: true },
    { namespace: 'plain', prefix: false },
  ]);

  it('namespaces the URIs and names of servers with a prefix, reversibly', () => {
    for (const [namespace, uri] of [
      ['alpha', 'demo://resource/static/1'],
      ['alpha', 'file:///tmp/a b.txt'],
      ['my server', 'urn:x:y/z'],
      ['alpha', 'aperture://beta/x'],
    ] as const) {
      const client = naming.toClient(namespace, uri);
      expect(client).not.toBe(uri);
      expect(naming.fromClient(client)).toEqual({ namespace, uri });
    }
    expect(naming.toClient('alpha', 'demo://x')).toBe('aperture://alpha/demo://x');
    expect(naming.toClient('my server', 'demo://x')).toBe('aperture://my%20server/demo://x');
    expect(naming.nameToClient('alpha', 'Resource 1')).toBe('alpha__Resource 1');
  });

  it('keeps the URIs of a server without prefix, and of a single server, as they are', () => {
    expect(naming.toClient('plain', 'demo://x')).toBe('demo://x');
    expect(naming.nameToClient('plain', 'R')).toBe('R');
    const single = new ResourceNaming([{ namespace: 'everything', prefix: true }]);
    expect(single.toClient('everything', 'demo://x')).toBe('demo://x');
    expect(single.fromClient('demo://x')).toEqual({ uri: 'demo://x' });
  });

  it('reads any other URI as a server’s own form', () => {
    expect(naming.fromClient('demo://x')).toEqual({ uri: 'demo://x' });
    expect(naming.fromClient('aperture://')).toEqual({ uri: 'aperture://' });
    expect(naming.fromClient('aperture://%E0%A4%A/x')).toEqual({ uri: 'aperture://%E0%A4%A/x' });
  });

  it('renames the resources a tool result links or embeds, and nothing else', () => {
    const result = {
      content: [
        { type: 'text' as const, text: 'demo://x' },
        { type: 'resource_link' as const, uri: 'demo://x', name: 'x' },
        { type: 'resource' as const, resource: { uri: 'demo://y', text: 'y' } },
      ],
    };
    expect(naming.resultToClient('alpha', result).content).toEqual([
      { type: 'text', text: 'demo://x' },
      { type: 'resource_link', uri: 'aperture://alpha/demo://x', name: 'x' },
      { type: 'resource', resource: { uri: 'aperture://alpha/demo://y', text: 'y' } },
    ]);
    expect(naming.resultToClient('plain', result)).toBe(result);
  });
});

describe('ResourceNaming of MCP App (ui://) resources', () => {
  const naming = new ResourceNaming([
    { namespace: 'monitor', prefix: true, sourceId: 'monitor-source' },
    { namespace: 'everything', prefix: true },
    { namespace: 'plain', prefix: false },
  ]);

  it('keeps the ui:// scheme, with the namespace as first segment, reversibly', () => {
    const client = naming.toClient('monitor', 'ui://system-monitor/mcp-app.html');
    expect(client).toBe('ui://monitor/system-monitor/mcp-app.html');
    expect(naming.fromClient(client)).toEqual({
      namespace: 'monitor',
      uri: 'ui://system-monitor/mcp-app.html',
    });
    expect(naming.fromClient(naming.toClient('everything', 'ui://app'))).toEqual({
      namespace: 'everything',
      uri: 'ui://app',
    });
    // Other schemes keep the aperture:// form.
    expect(naming.toClient('monitor', 'file:///x')).toBe('aperture://monitor/file:///x');
  });

  it('reads a ui:// URI that names no namespaced server as a server’s own', () => {
    expect(naming.fromClient('ui://system-monitor/mcp-app.html')).toEqual({
      uri: 'ui://system-monitor/mcp-app.html',
    });
    expect(naming.fromClient('ui://plain/x')).toEqual({ uri: 'ui://plain/x' });
    expect(naming.fromClient('ui://monitor')).toEqual({ uri: 'ui://monitor' });
    expect(naming.fromClient('ui://%E0%A4%A/x')).toEqual({ uri: 'ui://%E0%A4%A/x' });
    expect(naming.toClient('plain', 'ui://plain/x')).toBe('ui://plain/x');
    const single = new ResourceNaming([{ namespace: 'monitor', prefix: true }]);
    expect(single.toClient('monitor', 'ui://a/b')).toBe('ui://a/b');
    expect(single.fromClient('ui://monitor/a')).toEqual({ uri: 'ui://monitor/a' });
  });

  it('renames a tool’s _meta.ui and the flat key, found by the tool’s source', () => {
    const tool = {
      namespace: 'renamed-by-override',
      origin: { sourceId: 'monitor-source', kind: 'mcp', originalName: 'get-system-info' },
      meta: { ui: { resourceUri: 'ui://sm/app.html' }, 'ui/resourceUri': 'ui://sm/app.html' },
      ui: { resourceUri: 'ui://sm/app.html' },
    };
    expect(naming.toolMetaToClient(tool)).toEqual({
      ui: { resourceUri: 'ui://monitor/sm/app.html' },
      'ui/resourceUri': 'ui://monitor/sm/app.html',
    });
    expect(naming.toolUiUriToClient(tool)).toBe('ui://monitor/sm/app.html');
    const unprefixed = { ...tool, namespace: 'plain', origin: { ...tool.origin, sourceId: 'p' } };
    expect(naming.toolMetaToClient(unprefixed)).toBe(tool.meta);
  });

  it('renames the UI link of a result’s _meta with its content links', () => {
    const result = {
      content: [{ type: 'resource_link' as const, uri: 'demo://r', name: 'r' }],
      _meta: { ui: { resourceUri: 'ui://sm/app.html' } },
    };
    expect(naming.resultToClient('monitor', result)).toEqual({
      content: [{ type: 'resource_link', uri: 'aperture://monitor/demo://r', name: 'r' }],
      _meta: { ui: { resourceUri: 'ui://monitor/sm/app.html' } },
    });
    expect(naming.resultMetaToClient('monitor', result)).toEqual({
      ...result,
      _meta: { ui: { resourceUri: 'ui://monitor/sm/app.html' } },
    });
    expect(naming.resultMetaToClient('plain', result)).toBe(result);
  });
});
