import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { protectedResourceRoutes, resourceMetadataUrl } from './protected-resource-routes.js';

describe('protectedResourceRoutes', () => {
  const options = {
    authorizationServers: ['https://idp.example'],
    resourceName: 'gw',
    hasToolset: (name: string) => name === 'time',
  };

  it('names the origin a request reached by default, and each MCP endpoint as its own resource', async () => {
    const app = protectedResourceRoutes(options);
    const root = await app.request('http://127.0.0.1:8080/.well-known/oauth-protected-resource');
    expect(await root.json()).toEqual({
      resource: 'http://127.0.0.1:8080',
      authorization_servers: ['https://idp.example'],
      bearer_methods_supported: ['header'],
      resource_name: 'gw',
    });
    expect(root.headers.get('cache-control')).toBe('max-age=300');
    const toolset = await app.request('http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp/time');
    expect(((await toolset.json()) as { resource: string }).resource).toBe('http://127.0.0.1:8080/mcp/time');
    const unknown = await app.request('http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp/other');
    expect(unknown.status).toBe(404);
  });

  it('uses the configured public URL (behind a proxy) and lists supported scopes', async () => {
    const app = protectedResourceRoutes({
      ...options,
      resource: 'https://tools.example/',
      scopesSupported: ['tools'],
    });
    const body = (await (
      await app.request('http://10.0.0.5/.well-known/oauth-protected-resource/mcp')
    ).json()) as {
      resource: string;
      scopes_supported: string[];
    };
    expect(body.resource).toBe('https://tools.example/mcp');
    expect(body.scopes_supported).toEqual(['tools']);
  });
});

describe('resourceMetadataUrl', () => {
  it('points MCP endpoints (and legacy SSE) at their path-suffixed document, the rest at the root', async () => {
    const app = new Hono();
    app.all('*', (c) => c.text(resourceMetadataUrl(c, undefined)));
    const at = async (path: string) => (await app.request(`http://gw.local:9${path}`)).text();
    expect(await at('/mcp')).toBe('http://gw.local:9/.well-known/oauth-protected-resource/mcp');
    expect(await at('/mcp/time')).toBe('http://gw.local:9/.well-known/oauth-protected-resource/mcp/time');
    expect(await at('/sse')).toBe('http://gw.local:9/.well-known/oauth-protected-resource/mcp');
    expect(await at('/api/tools')).toBe('http://gw.local:9/.well-known/oauth-protected-resource');
  });
});
