import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

/**
 * A v2 SDK client of the gateway at `base` with API key `key` (`auto` negotiates 2026-07-28,
 * `legacy` speaks 2025-11-25), and the SDK's `SkillsClient` over it. `opened` collects it, for
 * the caller to close.
 */
export async function connectForSkills(
  base: string,
  key: string,
  mode: 'auto' | 'legacy',
  opened: Client[],
  name = 'skills-e2e',
): Promise<{ client: Client; skills: SkillsClient }> {
  const client = new Client({ name, version: '1' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  opened.push(client);
  return { client, skills: new SkillsClient(client) };
}
