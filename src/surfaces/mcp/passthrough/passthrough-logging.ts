import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import type { LoggingLevel } from '@modelcontextprotocol/server';
import { toGatewayError } from '../../../foundation/model/gateway-error.js';
import { maskStrings } from '../../../operations/secrets/secret-masker.js';
import { notifyClient, offering, type PassthroughContext, sees } from './passthrough-context.js';

const LEVELS = LoggingLevelSchema.options;

/**
 * Serves logging on the session: `logging/setLevel` goes to every server that logs (each merges
 * the levels of its sessions), and the servers' log messages reach the session at or above its
 * own level, with configured secrets masked. Returns the function that stops relaying them.
 */
export function serveLogging(context: PassthroughContext): () => void {
  const { server, session, log, mask } = context;
  let level: LoggingLevel | undefined;
  server.setRequestHandler('logging/setLevel', async (request) => {
    level = request.params.level;
    const wanted = level;
    await Promise.all(
      offering(context, 'logging').map((owner) =>
        owner.setLogLevel(session.channel, wanted).catch((error) => {
          log.warn({ server: owner.name, err: toGatewayError(error).message }, 'logging skipped');
        }),
      ),
    );
    return {};
  });
  const detach = context.servers.map(({ server: downstream }) =>
    downstream.onNotification((method, params) => {
      if (method !== 'notifications/message' || !sees(context, downstream)) return;
      // A server's log message may quote its own configuration (a URL with a key, a header).
      const masked = params === undefined ? params : maskStrings(params, mask);
      const at = LEVELS.indexOf((masked?.level as LoggingLevel) ?? 'info');
      if (level === undefined || at >= LEVELS.indexOf(level)) notifyClient(context, method, masked);
    }),
  );
  return () => {
    for (const off of detach) off();
  };
}
