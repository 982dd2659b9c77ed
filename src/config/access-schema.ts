import { z } from 'zod';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { DEFAULT_JWT_ALGORITHMS } from '../operations/auth/jwt-algorithms.js';
import { DEFAULT_CLOCK_TOLERANCE_SEC } from '../operations/auth/jwt-verifier.js';
import { bool, httpUrl, int, namespaceString } from './schema-primitives.js';

/*
 * The `toolsets` and `auth` sections of the config (docs/DESIGN.md §4): named, filtered views of the
 * catalog, and the credentials that confine callers to them. Strict like the rest of the schema.
 */

/** Letters, digits, `_`, `.`, `-`, starting with a letter or digit: safe as a URL path segment. */
const TOOLSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const TOOLSET_NAME_RULE =
  'letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters';
/** Below this, a key can be guessed; `openssl rand -hex 32` makes a good one. */
export const MIN_API_KEY_LENGTH = 16;

// Custom issues keep these messages (the loader rewords built-in size issues generically).
const nonEmptyList = <T extends z.ZodType>(item: T, what: string) =>
  z.array(item).refine((list) => list.length > 0, {
    error: `must list at least one ${what}; leave the key out to not filter on it`,
  });

const toolsetName = () =>
  z.string().regex(TOOLSET_NAME, { error: `must be a toolset name (${TOOLSET_NAME_RULE})` });

/** A tool id or a glob over ids (`github:*`, `*:read_*`); exclusions go in `exclude`. */
const idPattern = () =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .refine((value) => !/\s/.test(value), { error: 'must be a tool id or glob without spaces' })
    .refine((value) => !value.startsWith('!'), {
      error: 'negated patterns are not supported; use "exclude"',
    });

const toolsetSchema = z.strictObject({
  name: toolsetName().describe("The toolset's name, unique: it is served at `/mcp/{name}`."),
  description: z
    .string()
    .optional()
    .describe('What the toolset is for, shown to clients and in the console.'),
  namespaces: nonEmptyList(namespaceString(), 'namespace')
    .optional()
    .describe('Tools of any of these namespaces.'),
  tags: nonEmptyList(z.string().min(1), 'tag').optional().describe('Any of these tags.'),
  tools: nonEmptyList(idPattern(), 'tool id or glob')
    .optional()
    .describe('Tools with any of these ids or globs (`github:*`, `*:read_*`).'),
  exclude: nonEmptyList(idPattern(), 'tool id or glob')
    .optional()
    .describe('Tools with these ids or globs are left out, whatever matched them.'),
  annotations: z
    .strictObject({
      readOnlyHint: bool().optional().describe('Only tools whose `readOnlyHint` is this value.'),
      destructiveHint: bool().optional().describe('Only tools whose `destructiveHint` is this value.'),
      idempotentHint: bool().optional().describe('Only tools whose `idempotentHint` is this value.'),
      openWorldHint: bool().optional().describe('Only tools whose `openWorldHint` is this value.'),
    })
    .optional()
    .describe('Required hint values, e.g. `{ readOnlyHint: true }`.'),
});

export const toolsetsSection = z
  .array(toolsetSchema)
  .superRefine((toolsets, ctx) => {
    const seen = new Map<string, number>();
    for (const [index, toolset] of toolsets.entries()) {
      const first = seen.get(toolset.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `duplicate toolset name "${toolset.name}" (also toolsets[${first}])`,
        });
      } else {
        seen.set(toolset.name, index);
      }
    }
  })
  .default([])
  .describe('`toolsets`: names must be unique (each is served at `/mcp/{name}`).');

/** One toolset in the parsed config. */
export type ToolsetConfig = z.output<typeof toolsetSchema>;

const apiKeySchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,127}$/, {
      error: 'must be a name of letters, digits, "_", ".", "@", ":" or "-", starting with a letter or digit',
    })
    .describe('The identity the key proves: shown in logs, used for rate limits and session ownership.'),
  key: z
    .string()
    .refine((key) => key.length >= MIN_API_KEY_LENGTH, {
      error: `must be at least ${MIN_API_KEY_LENGTH} characters (generate one with: openssl rand -hex 32)`,
    })
    .describe(
      `The secret a client sends (\`Authorization: Bearer\` or \`X-API-Key\`), at least ${MIN_API_KEY_LENGTH} characters (e.g. \`openssl rand -hex 32\`).`,
    ),
  toolsets: z
    .array(toolsetName())
    .refine((list) => list.length > 0, {
      error: 'must list at least one toolset; leave it out for all tools',
    })
    .optional()
    .describe('Confines the key to these toolsets (their union); absent: the whole catalog.'),
  admin: bool()
    .optional()
    .describe(
      'An administrator: reads `/metrics` and the details of `/readyz` (other keys get 403 / `{ ready }`).',
    ),
  roles: z.array(z.string().min(1)).optional().describe('Roles of `auth.roles` the key holds.'),
});

const roleSchema = z
  .strictObject({
    toolsets: z
      .array(z.union([z.literal('*'), toolsetName()]))
      .optional()
      .describe(
        'Toolsets the role grants (`"*"`: all); absent: none (the role is a label for policy rules).',
      ),
    admin: bool().optional().describe('Holders are administrators.'),
  })
  .describe('One role of `auth.roles`.');

const introspectionSchema = z
  .strictObject({
    url: httpUrl().describe('The introspection endpoint (RFC 7662) that checks each token.'),
    clientId: z.string().min(1).describe("The gateway's own client id at that server (sent as HTTP Basic)."),
    clientSecret: z
      .string()
      .min(1)
      .describe("The gateway's own client secret at that server (sent as HTTP Basic)."),
    cacheMs: int(0, 3_600_000)
      .optional()
      .describe("How long an active answer is reused (never past the token's `exp`); 0 asks every time."),
    toolsetsClaim: z
      .string()
      .min(1)
      .optional()
      .describe('As `jwt.toolsetsClaim`, read from the introspection response.'),
    adminClaim: z
      .string()
      .min(1)
      .optional()
      .describe('As `jwt.adminClaim`, read from the introspection response.'),
  })
  .describe('`auth.introspection`: opaque tokens checked at an RFC 7662 endpoint.');

const stringOrList = () =>
  z.custom<string | string[]>(
    (value) =>
      (typeof value === 'string' && value !== '') ||
      (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '')),
    { error: 'must be a non-empty string or a list of them' },
  );

const jwtSchema = z
  .strictObject({
    jwksUrl: httpUrl()
      .optional()
      .describe("The issuer's JSON Web Key Set URL (keys fetched and cached); or `publicKey`."),
    publicKey: z.string().min(1).optional().describe('PEM (SPKI or certificate) or a JWK as JSON text.'),
    issuer: stringOrList().describe('The `iss` the token must have (one or a list).'),
    audience: stringOrList().describe('The `aud` the token must have (one or a list).'),
    toolsetsClaim: z
      .string()
      .min(1)
      .optional()
      .describe('Claim with the toolsets a token grants (list or space-separated; "*" = all).'),
    adminClaim: z
      .string()
      .min(1)
      .optional()
      .describe('Claim marking an administrator: `true`, or roles (list or space-separated) naming "admin".'),
    algorithms: z
      .array(z.enum(DEFAULT_JWT_ALGORITHMS))
      .min(1)
      .optional()
      .describe('Signature algorithms accepted; default the asymmetric ones.'),
    clockToleranceSec: int(0, 600)
      .default(DEFAULT_CLOCK_TOLERANCE_SEC)
      .describe('Seconds of clock skew allowed on `exp` and `nbf`.'),
  })
  .superRefine((jwt, ctx) => {
    if ((jwt.jwksUrl === undefined) === (jwt.publicKey === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'set exactly one of "jwksUrl" and "publicKey"' });
    }
  });

export const authSection = z
  .strictObject({
    apiKeys: z
      .array(apiKeySchema)
      .superRefine((keys, ctx) => {
        const names = new Map<string, number>();
        const values = new Map<string, number>();
        for (const [index, entry] of keys.entries()) {
          const sameName = names.get(entry.name);
          if (sameName !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [index, 'name'],
              message: `duplicate key name "${entry.name}" (also apiKeys[${sameName}])`,
            });
          }
          const sameKey = values.get(entry.key);
          if (sameKey !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [index, 'key'],
              message: `the same key as apiKeys[${sameKey}]; every key must be distinct`,
            });
          }
          names.set(entry.name, index);
          values.set(entry.key, index);
        }
      })
      .default([])
      .describe(
        'API keys (`Authorization: Bearer` or `X-API-Key`), each confined to toolsets unless `admin`.',
      ),
    jwt: jwtSchema.optional().describe("JWTs (`Authorization: Bearer`) verified against the issuer's keys."),
    introspection: introspectionSchema.optional(),
    roles: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/), roleSchema)
      .optional()
      .describe('Roles: what each grants; held through `apiKeys[].roles` or the token claim `roleClaim`.'),
    roleClaim: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The claim (JWT or introspection response) naming the caller's roles; a dotted path reaches nested claims.",
      ),
    oauth: z
      .strictObject({
        authorizationServers: z
          .array(httpUrl())
          .refine((list) => list.length > 0, { error: 'must list at least one authorization server' })
          .describe('Where clients log in: `authorization_servers` of the protected resource metadata.'),
        resource: httpUrl()
          .optional()
          .describe("The gateway's public base URL (default: the origin a request reached it at)."),
        scopesSupported: z
          .array(z.string().min(1))
          .optional()
          .describe('Scopes announced as `scopes_supported` of the protected resource metadata.'),
      })
      .optional()
      .describe('OAuth protected resource metadata, for MCP clients that log in themselves.'),
  })
  .superRefine((auth, ctx) => {
    for (const [index, entry] of auth.apiKeys.entries()) {
      for (const [position, role] of (entry.roles ?? []).entries()) {
        if (auth.roles !== undefined && Object.hasOwn(auth.roles, role)) continue;
        ctx.addIssue({
          code: 'custom',
          path: ['apiKeys', index, 'roles', position],
          message: `no role "${role}" in auth.roles (defined: ${Object.keys(auth.roles ?? {}).join(', ') || 'none'})`,
        });
      }
    }
    if (auth.roleClaim !== undefined && !auth.jwt && !auth.introspection) {
      ctx.addIssue({
        code: 'custom',
        path: ['roleClaim'],
        message: 'needs "jwt" or "introspection": only tokens carry claims',
      });
    }
    if (auth.oauth && !auth.jwt) {
      ctx.addIssue({
        code: 'custom',
        path: ['oauth'],
        message: 'needs "jwt": the gateway must verify the tokens those authorization servers issue',
      });
    }
  })
  .prefault({})
  .describe(
    '`auth`: when `apiKeys` or `jwt` is set, every surface but health, readiness, the protected resource metadata and the A2A agent card needs credentials. `oauth` publishes RFC 9728 metadata naming the authorization servers that issue the JWTs.',
  );

/** The parsed `auth` section. */
export type AuthConfig = z.output<typeof authSection>;

/**
 * Cross-section check the per-section schemas cannot make: every toolset an API key is confined
 * to must exist. Throws `config_invalid` naming the first bad key path.
 */
export function assertToolsetReferences(
  config: { toolsets: readonly { name: string }[]; auth: AuthConfig },
  label: string,
): void {
  const known = new Set(config.toolsets.map((t) => t.name));
  for (const [index, entry] of config.auth.apiKeys.entries()) {
    for (const [position, name] of (entry.toolsets ?? []).entries()) {
      if (known.has(name)) continue;
      const path = `auth.apiKeys[${index}].toolsets[${position}]`;
      throw new GatewayError(
        'config_invalid',
        `Invalid config (${label}): ${path}: no toolset "${name}" (defined: ${[...known].join(', ') || 'none'})`,
        { details: { path } },
      );
    }
  }
  for (const [role, grant] of Object.entries(config.auth.roles ?? {})) {
    for (const [position, name] of (grant.toolsets ?? []).entries()) {
      if (name === '*' || known.has(name)) continue;
      const path = `auth.roles.${role}.toolsets[${position}]`;
      throw new GatewayError(
        'config_invalid',
        `Invalid config (${label}): ${path}: no toolset "${name}" (defined: ${[...known].join(', ') || 'none'})`,
        { details: { path } },
      );
    }
  }
}
