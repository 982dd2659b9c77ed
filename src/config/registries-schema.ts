import { z } from 'zod';
import { httpUrl, nonEmptyString } from './schema-primitives.js';

/**
 * `registries`: the MCP registries `aperture registry search` and `aperture add NAME` ask, in
 * order (the first that knows a name wins). Absent: the official MCP Registry (`OFFICIAL_REGISTRY`;
 * applied by the commands, so the parsed config carries no default). Any server with
 * the registry API (`/v0/servers…`) can be listed: a company's private registry, a mirror.
 */
export const registriesSection = z
  .array(
    z.strictObject({
      /** Base URL; the API lives under `/v0/`. */
      url: httpUrl(),
      /** Shown in search results; default: the URL's host. */
      name: nonEmptyString().optional(),
    }),
  )
  .min(1, { error: 'must list at least one registry' })
  .optional();
