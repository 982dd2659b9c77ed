import { z } from 'zod';
import { bool, int, looseObject, nonEmptyString } from '../../foundation/schema/config-values.js';
import { DECLARED_TOOL_FIELDS, type DeclaredGroup } from '../declared/declared-section.js';

/** The HTTP methods an endpoint may use. */
export const ENDPOINT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** A credential sent with every request: a bearer token, or a named header. */
const authSchema = z.union([
  nonEmptyString(),
  z.strictObject({ bearer: nonEmptyString().describe('A token sent as `Authorization: Bearer <token>`.') }),
  z.strictObject({
    header: nonEmptyString().describe('The name of the header that carries the credential.'),
    value: nonEmptyString().describe("The header's value."),
  }),
]);

/** One HTTP endpoint as a tool (`endpoints: { <tool name>: … }`). */
export const endpointEntrySchema = z.strictObject({
  ...DECLARED_TOOL_FIELDS,
  method: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.toUpperCase() : value),
      z.enum(ENDPOINT_METHODS),
    )
    .optional()
    .describe('The HTTP method (any case). Default GET.'),
  url: nonEmptyString().describe(
    'The URL; `{name}` in its path or query is the argument `name` (percent-encoded).',
  ),
  query: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Query parameters added to the URL; values are templates, an absent argument leaves the key out.',
    ),
  headers: z.record(z.string(), z.string()).optional().describe('Request headers; values are templates.'),
  body: z
    .unknown()
    .optional()
    .describe(
      'The JSON body: a value whose strings are templates; exactly `"{name}"` keeps the argument\'s type.',
    ),
  auth: authSchema
    .optional()
    .describe(
      'A credential sent with every request: a string (a bearer token, usually a `secret:` reference), `{ bearer }` or `{ header, value }`.',
    ),
  timeoutMs: int(1).optional().describe('Time limit of one request, body included. Default 10000.'),
  retries: int(0, 5)
    .optional()
    .describe(
      'Retries of an idempotent request (GET, HEAD, PUT, DELETE, OPTIONS) that could not reach the service or got 502/503/504. Default 0.',
    ),
  response: z
    .strictObject({
      pick: nonEmptyString()
        .optional()
        .describe("A JMESPath expression applied to a JSON answer: the tool's result is what it selects."),
      outputSchema: looseObject().optional().describe('JSON Schema of the (picked) result.'),
    })
    .optional()
    .describe("How the answer becomes the tool's result."),
  allowPrivateNetwork: bool()
    .optional()
    .describe(
      'Allow every loopback/private host, redirects included. Off: only the host of `url` may be private.',
    ),
  maxResponseBytes: int(1).optional().describe('Largest answer read. Default 10 MiB.'),
});

/** One entry of `endpoints:` as validated. */
export type EndpointEntry = z.output<typeof endpointEntrySchema>;

/** The endpoints of one namespace: one source. */
export type EndpointGroup = DeclaredGroup<EndpointEntry>;
