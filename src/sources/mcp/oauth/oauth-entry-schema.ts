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
    /** `authorization_code` (people, `aperture login`) or `client_credentials` (machines). */
    grant: z.enum(['authorization_code', 'client_credentials']).default('authorization_code'),
    /** A client registered ahead of time; absent: dynamic client registration (RFC 7591). */
    clientId: nonEmptyString().optional(),
    /** Its secret, through `${secret:…}`; absent for a public client. */
    clientSecret: nonEmptyString().optional(),
    /** Scopes to ask for; absent: those the server's metadata lists. */
    scopes: z.array(nonEmptyString()).optional(),
    /** One token set per gateway identity (needs `auth`): each caller's calls carry its own token. */
    perUser: bool().default(false),
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
