import { z } from 'zod';
import { httpUrl, nonEmptyString } from './schema-primitives.js';

export const registriesSection = z
  .array(
    z.strictObject({
      url: httpUrl().describe('Base URL; the API lives under `/v0/`.'),
      name: nonEmptyString().optional().describe("Shown in search results; default: the URL's host."),
    }),
  )
  .min(1, { error: 'must list at least one registry' })
  .optional()
  .describe(
    "`registries`: the MCP registries `aperture registry search` and `aperture add NAME` ask, in order (the first that knows a name wins). Absent: the official MCP Registry (`OFFICIAL_REGISTRY`; applied by the commands, so the parsed config carries no default). Any server with the registry API (`/v0/servers…`) can be listed: a company's private registry, a mirror.",
  );
