import type { z } from 'zod';
import { CONFIGURED_DRIVERS, type SourceSectionValues } from '../sources/source-drivers.js';

/*
 * The config's source sections (`servers`, `openapi`, `agents`, …) come from the source drivers:
 * each declares the config keys it reads and their schemas, and how they join into its section.
 */

/**
 * The config keys of every source driver with their schemas, in driver order. Typed as no keys:
 * the parsed values are replaced by the sections' values (`joinSourceSections`), whose types come
 * from the drivers.
 */
export const SOURCE_FIELDS = Object.assign(
  {},
  ...CONFIGURED_DRIVERS.map((driver) => driver.section.fields),
) as Record<never, z.ZodType>;

/** Every config key a source driver reads. */
const FIELD_KEYS: ReadonlySet<string> = new Set(
  CONFIGURED_DRIVERS.flatMap((driver) => Object.keys(driver.section.fields)),
);

/**
 * The parsed config with each driver's fields replaced by its section's value. A section read from
 * one key (`openapi`) keeps that key's place; one joined from several (`servers` and `mcpServers`)
 * comes after the others.
 */
export function joinSourceSections<T extends object>(
  parsed: T,
  ctx: z.RefinementCtx,
): T & SourceSectionValues {
  const raw = parsed as Record<string, unknown>;
  const joined: Record<string, unknown> = {};
  const inPlace = new Map<string, unknown>();
  for (const { section } of CONFIGURED_DRIVERS) {
    if (section.join === undefined) inPlace.set(section.name, raw[section.name]);
    else {
      const fields = Object.fromEntries(Object.keys(section.fields).map((key) => [key, raw[key]]));
      joined[section.name] = section.join(fields, ctx);
    }
  }
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (inPlace.has(key)) result[key] = inPlace.get(key);
    else if (!FIELD_KEYS.has(key)) result[key] = value;
  }
  return Object.assign(result, joined) as T & SourceSectionValues;
}
