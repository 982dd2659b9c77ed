import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { InMemorySource } from '../../catalog/in-memory-source.js';
import { localEntries } from '../local/local-source.js';
import { BUILTIN_DRIVER } from './builtin-driver.js';
import { builtinTools } from './builtin-tools.js';

/** The catalog source id of the built-in tools. */
export const BUILTIN_SOURCE_ID = 'builtin';

/** The built-in tools as catalog entries, as the gateway publishes them. */
export function builtinEntries(): CatalogEntry[] {
  return localEntries(BUILTIN_SOURCE_ID, BUILTIN_DRIVER.kind, builtinTools());
}

/** The built-in tools as one in-process source. */
export function builtinSource(): InMemorySource {
  return new InMemorySource(BUILTIN_SOURCE_ID, BUILTIN_DRIVER.kind, builtinEntries());
}
