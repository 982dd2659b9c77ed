import { z } from 'zod';
import { DEFAULT_MAX_DESCRIPTION_CHARS } from '../catalog/trust/poisoning-detector.js';
import { isFingerprintHash } from '../catalog/trust/tool-fingerprint.js';
import { int } from './schema-primitives.js';

export const trustSection = z
  .strictObject({
    mode: z
      .enum(['off', 'warn', 'quarantine'], { error: 'must be "off", "warn" or "quarantine"' })
      .default('warn')
      .describe(
        '`off`: nothing checked; `warn` (default): logged, counted, served; `quarantine`: held back until approved.',
      ),
    pinned: z
      .record(
        z.string().regex(/^[^:\s]+:[^\s]+$/, { error: 'must be a tool id "namespace:name"' }),
        z.string().refine(isFingerprintHash, { error: 'must be a fingerprint "sha256:" and 64 hex digits' }),
      )
      .default({})
      .describe(
        'Tool id → the one fingerprint trusted for it (`sha256:…`, as `aperture trust list` or `aperture catalog snapshot` print it): that version is served whatever the state store says, any other is treated as changed.',
      ),
    maxDescriptionChars: int(1)
      .default(DEFAULT_MAX_DESCRIPTION_CHARS)
      .describe('Descriptions longer than this are flagged as possible poisoning.'),
  })
  .prefault({})
  .describe(
    '`trust`: trust on first use of downstream tools, then quarantine of changed or poisoned ones (docs/SECURITY.md). Tools of MCP servers, OpenAPI services and A2A agents are fingerprinted when first seen; `mode` decides what happens to a later, different version.',
  );
