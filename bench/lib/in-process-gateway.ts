/**
 * The modules the in-process benchmarks build a gateway from: this checkout's built `dist/` (what
 * `aperture serve` runs; the same code loaded from `src/` through tsx measured ~25 % slower per
 * call), else its `src/`; or the `dist/` of the other build `--gateway-cli` names, so one build can
 * be measured against another. The types come from `src/` either way, so a rename still breaks the
 * typecheck.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OTHER_BUILD_DIST, ROOT } from './common.js';

type LoadConfigModule = typeof import('../../src/config/load-config.js');
type LoggerModule = typeof import('../../src/operations/create-logger.js');
type GatewayModule = typeof import('../../src/app/gateway.js');

/** What an in-process benchmark needs to build a Gateway the way `serve` does. */
export interface GatewayModules {
  loadConfig: LoadConfigModule['loadConfig'];
  createLogger: LoggerModule['createLogger'];
  Gateway: GatewayModule['Gateway'];
}

/**
 * Loads the gateway modules; undefined when the other build is bundled (no separate modules to
 * load, so nothing to measure in process).
 */
export async function gatewayModules(): Promise<GatewayModules | undefined> {
  const ownDist = path.join(ROOT, 'dist');
  if (OTHER_BUILD_DIST === undefined && !existsSync(path.join(ownDist, 'app/gateway.js'))) {
    const [{ loadConfig }, { createLogger }, { Gateway }] = await Promise.all([
      import('../../src/config/load-config.js'),
      import('../../src/operations/create-logger.js'),
      import('../../src/app/gateway.js'),
    ]);
    return { loadConfig, createLogger, Gateway };
  }
  const dist = OTHER_BUILD_DIST ?? ownDist;
  const file = (f: string) => path.join(dist, f);
  if (!existsSync(file('app/gateway.js'))) return undefined;
  const load = async <T>(f: string): Promise<T> => (await import(pathToFileURL(file(f)).href)) as T;
  const [{ loadConfig }, { createLogger }, { Gateway }] = await Promise.all([
    load<LoadConfigModule>('config/load-config.js'),
    load<LoggerModule>('operations/create-logger.js'),
    load<GatewayModule>('app/gateway.js'),
  ]);
  return { loadConfig, createLogger, Gateway };
}
