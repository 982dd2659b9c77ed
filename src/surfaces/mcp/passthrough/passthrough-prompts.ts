import { GetPromptResultSchema } from '@modelcontextprotocol/core';
import {
  type CacheHint,
  type GetPromptResult,
  type Prompt,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { flatToolName } from '../../../foundation/model/flat-name.js';
import { protocolError } from '../protocol-error.js';
import { gated, outsideScope } from './passthrough-access.js';
import {
  gather,
  listHint,
  notifyClient,
  type PassthroughContext,
  pages,
  sees,
} from './passthrough-context.js';
import type { PassthroughRelay } from './passthrough-relay.js';
import { relayRounds } from './relay-rounds.js';

/** A prompt as the client names it: its server and its name there. */
export interface PromptRoute {
  owner: PassthroughRelay;
  name: string;
}

/** A session's prompts passthrough, once served. */
export interface PromptsPassthrough {
  /** The server and own name of the prompt the client calls `name`; -32602 when there is none. */
  route(name: string): Promise<PromptRoute>;
  close(): void;
}

/**
 * Every prompt of the servers the session sees, by the name the client knows it by (the
 * `namespace__` prefix unless the server has `prefix: false`, the first configured server winning
 * a name), with its server and own name; and each server's caching hint.
 */
export async function listPrompts(
  context: PassthroughContext,
): Promise<{ map: Map<string, PromptRoute & { prompt: Prompt }>; hints: (CacheHint | undefined)[] }> {
  const { servers, log } = context;
  const found = await gather(context, 'prompts', (client, owner) =>
    pages((cursor) =>
      client.listPrompts(cursor).then((r) => ({ items: r.prompts, next: r.nextCursor, raw: r })),
    ).then(({ items, hint }) => ({ hint, items: items.map((prompt) => ({ prompt, owner })) })),
  );
  const map = new Map<string, PromptRoute & { prompt: Prompt }>();
  for (const { prompt, owner } of found.items) {
    const entry = servers.find((s) => s.server === owner);
    const name = entry?.prefix === false ? prompt.name : flatToolName(owner.namespace, prompt.name);
    if (map.has(name)) {
      log.warn(
        { prompt: name, server: owner.name },
        'prompt name already taken by an earlier server; dropped',
      );
      continue;
    }
    map.set(name, { owner, name: prompt.name, prompt: { ...prompt, name } });
  }
  return { map, hints: found.hints };
}

/**
 * Serves every downstream server's prompts on the session: names get the `namespace__` prefix
 * like tools, unless the server has `prefix: false` (then the first configured server wins a
 * name); `prompts/get` goes to the owning server under its own name. A server's
 * `prompts/list_changed` reaches the client and makes the names be listed again.
 */
export function servePrompts(context: PassthroughContext): PromptsPassthrough {
  const { server, servers } = context;
  let known: Map<string, PromptRoute> | undefined;

  async function promptMap(
    refresh: boolean,
  ): Promise<{ map: Map<string, PromptRoute & { prompt: Prompt }>; hints: (CacheHint | undefined)[] }> {
    const listed = await listPrompts(context);
    if (refresh || !known) known = listed.map;
    return listed;
  }

  async function route(name: string): Promise<PromptRoute> {
    const found = known?.get(name) ?? (await promptMap(true)).map.get(name);
    if (found) return found;
    // A prefixed name of a server outside the session's toolsets: refused rather than unknown.
    const outside = servers.find(
      (s) => s.prefix && !sees(context, s.server) && name.startsWith(flatToolName(s.server.namespace, '')),
    );
    if (outside) throw outsideScope(`Prompt ${name}`, outside.server);
    throw protocolError(ProtocolErrorCode.InvalidParams, `Prompt not found: ${name}`, { name });
  }

  server.setRequestHandler('prompts/list', async (_request, extra) => {
    const { map, hints } = await promptMap(true);
    return { prompts: [...map.values()].map((p) => p.prompt), ...listHint(context, extra, hints) };
  });
  server.setRequestHandler('prompts/get', async (request, extra) => {
    const target = await route(request.params.name);
    return gated(
      context.access,
      target.owner,
      'prompts/get',
      { name: request.params.name, arguments: request.params.arguments ?? {} },
      extra,
      () =>
        relayRounds<GetPromptResult>(
          context,
          target.owner,
          extra,
          `prompts/get:${request.params.name}`,
          { method: 'prompts/get', params: { ...request.params, name: target.name } },
          GetPromptResultSchema,
        ),
      context.mask,
    );
  });

  const detach = servers.map(({ server: downstream }) =>
    downstream.onNotification((method, params) => {
      if (method !== 'notifications/prompts/list_changed' || !sees(context, downstream)) return;
      known = undefined;
      notifyClient(context, method, params);
    }),
  );
  return {
    route,
    close: () => {
      for (const off of detach) off();
    },
  };
}
