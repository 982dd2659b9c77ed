import { z } from 'zod';
import { bool, nonEmptyString } from '../../../foundation/schema/config-values.js';

/**
 * `servers.<name>.oauth`: a remote server protected by OAuth 2.1 (the MCP authorization spec).
 * Every key is optional: `oauth: {}` discovers the authorization server from the server's
 * protected-resource metadata, registers a client dynamically and logs in with the
 * authorization-code flow (`aperture login SERVER`).
 */
export const oauthSection = z
  .strictObject({
    grant: z
      .enum(['authorization_code', 'client_credentials'])
      .default('authorization_code')
      .describe('`authorization_code` (people, `aperture login`) or `client_credentials` (machines).'),
    clientId: nonEmptyString()
      .optional()
      .describe('A client registered ahead of time; absent: dynamic client registration (RFC 7591).'),
    clientSecret: nonEmptyString()
      .optional()
      .describe(
        "The registered client's secret (give it as a `secret:` reference); absent for a public client.",
      ),
    scopes: z
      .array(nonEmptyString())
      .optional()
      .describe("Scopes to ask for; absent: those the server's metadata lists."),
    perUser: bool()
      .default(false)
      .describe(
        "One token set per gateway identity (needs `auth`): each caller's calls carry its own token.",
      ),
  })
  .superRefine((oauth, ctx) => {
    if (oauth.grant === 'client_credentials' && oauth.clientId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['clientId'],
        message: 'is required with grant "client_credentials" (a machine client is registered ahead of time)',
      });
    }
    if (oauth.grant === 'client_credentials' && oauth.perUser) {
      ctx.addIssue({
        code: 'custom',
        path: ['perUser'],
        message: 'cannot be true with grant "client_credentials": a machine client has one identity',
      });
    }
    if (oauth.clientSecret !== undefined && oauth.clientId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['clientSecret'], message: 'needs "clientId" as well' });
    }
  });

/** The validated `oauth` block of one server. */
export type OAuthServerConfig = z.output<typeof oauthSection>;
