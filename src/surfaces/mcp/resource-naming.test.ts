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
