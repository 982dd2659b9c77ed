import type { CatalogEntry } from '../catalog/catalog-entry.js';
import type { LoadedConfig } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { LOCAL_DRIVER, moduleSourceId } from '../sources/local/local-driver.js';
import { localEntries } from '../sources/local/local-source.js';

/** The catalog entries of one tool module. */
export interface LocalToolSource {
  sourceId: string;
  /** The source kind of user modules (`LOCAL_DRIVER.kind`). */
  kind: string;
  file: string;
  entries: CatalogEntry[];
}

/**
 * The tools of the config's `tools.modules`, loaded and turned into catalog entries exactly as
 * `serve` does: `aperture config validate` calls this too, so a glob that matches nothing, a
 * module that fails to load or a definition the catalog refuses is reported by both, with the
 * same `config_invalid` error naming the file.
 */
export async function loadLocalTools(loaded: LoadedConfig): Promise<LocalToolSource[]> {
  const { config, baseDir } = loaded;
  if (config.tools.modules.length === 0) return [];
  // Loaded only when used: the module loader pulls in globbing, and tsx for TypeScript.
  const { loadToolModules } = await import('../sources/local/module-loader.js');
  const modules = await loadToolModules(config.tools.modules, baseDir);
  return modules.map((module) => {
    const sourceId = moduleSourceId(module.file);
    const { kind } = LOCAL_DRIVER;
    try {
      return { sourceId, kind, file: module.file, entries: localEntries(sourceId, kind, module.definitions) };
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code === 'config_invalid') throw error;
      throw new GatewayError('config_invalid', `Tool module ${module.file}: ${error.message}`, {
        details: { path: 'tools.modules', file: module.file },
        cause: error,
      });
    }
  });
}
