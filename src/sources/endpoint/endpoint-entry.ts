import { z } from 'zod';
import { bool, int, looseObject, nonEmptyString } from '../../foundation/schema/config-values.js';
import { DECLARED_TOOL_FIELDS, type DeclaredGroup } from '../declared/declared-section.js';

/** The HTTP methods an endpoint may use. */
export const ENDPOINT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** A credential sent with every request: a bearer token, or a named header. */
const authSchema = z.union([
  nonEmptyString(),
  z.strictObject({ bearer: nonEmptyString() }),
  z.strictObject({ header: nonEmptyString(), value: nonEmptyString() }),
]);

/** One HTTP endpoint as a tool (`endpoints: { <tool name>: … }`). */
export const endpointEntrySchema = z.strictObject({
  ...DECLARED_TOOL_FIELDS,
  /** Default GET. */
  method: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.toUpperCase() : value),
      z.enum(ENDPOINT_METHODS),
    )
    .optional(),
  /** The URL; `{name}` in its path or query is the argument `name` (percent-encoded). */
  url: nonEmptyString(),
  /** Query parameters added to the URL; values are templates, an absent argument leaves the key out. */
  query: z.record(z.string(), z.string()).optional(),
  /** Request headers; values are templates. */
  headers: z.record(z.string(), z.string()).optional(),
  /** The JSON body: a value whose strings are templates; exactly `"{name}"` keeps the argument's type. */
  body: z.unknown().optional(),
  /** `"${secret:TOKEN}"` (a bearer token), `{ bearer }` or `{ header, value }`. */
  auth: authSchema.optional(),
  /** Time limit of one request, body included. Default 10000. */
  timeoutMs: int(1).optional(),
  /** Retries of an idempotent request (GET, HEAD, PUT, DELETE, OPTIONS) that could not reach the service or got 502/503/504. Default 0. */
  retries: int(0, 5).optional(),
  response: z
    .strictObject({
      /** A JMESPath expression applied to a JSON answer: the tool's result is what it selects. */
      pick: nonEmptyString().optional(),
      /** JSON Schema of the (picked) result. */
      outputSchema: looseObject().optional(),
    })
    .optional(),
  /** Allow every loopback/private host, redirects included. Off: only the host of `url` may be private. */
  allowPrivateNetwork: bool().optional(),
  /** Largest answer read. Default 10 MiB. */
  maxResponseBytes: int(1).optional(),
});

/** One entry of `endpoints:` as validated. */
export type EndpointEntry = z.output<typeof endpointEntrySchema>;

/** The endpoints of one namespace: one source. */
export type EndpointGroup = DeclaredGroup<EndpointEntry>;
