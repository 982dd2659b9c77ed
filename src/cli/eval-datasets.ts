import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { PACKAGE_ROOT } from './invoked-as.js';

/** A labelled data set that ships with the repository, named for `aperture eval --dataset NAME`. */
export interface ShippedDataset {
  name: string;
  /** Its folder (`tools.jsonl`, `queries.jsonl`), relative to the repository root. */
  dir: string;
  /** What it holds, in a few words (with its size). */
  contents: string;
  /** Where it came from. */
  source: string;
  licence: string;
}

/**
 * The data sets in this repository, by name. Why so few: the public tool-retrieval benchmarks
 * docs/SEARCH.md reports on (ToolLens, LiveMCPBench, ToolBench, MetaTool) are not in it; give
 * their converted folder with `--dataset DIR`.
 */
export const SHIPPED_DATASETS: readonly ShippedDataset[] = [
  {
    name: 'mini',
    dir: 'test/fixtures/eval-mini',
    contents: '3 tools, 2 queries (+2 to --learn from: queries_learn.jsonl)',
    source: "written for Aperture's own tests",
    licence: 'Apache-2.0, as this repository',
  },
];

/** The shipped data sets as `--help` and errors list them: one line each. */
export function datasetList(indent = '  '): string {
  return SHIPPED_DATASETS.map(
    (d) => `${indent}${d.name.padEnd(6)} ${d.contents}; ${d.source}; ${d.licence} (${d.dir})`,
  ).join('\n');
}

/**
 * The folder `--dataset` means: a folder given by path (anything with a path separator, or an
 * existing folder), else a shipped data set's name.
 *
 * @throws GatewayError `invalid_request` for an unknown name, listing the shipped ones; `not_found`
 * for a shipped one missing from this installation (they ship with the repository, not the npm package).
 */
export function resolveDataset(given: string, cwd: string, root = PACKAGE_ROOT): string {
  const asPath = path.resolve(cwd, given);
  if (/[\\/]/.test(given) || given.startsWith('.') || isDirectory(asPath)) return asPath;
  const shipped = SHIPPED_DATASETS.find((d) => d.name === given);
  if (shipped === undefined) {
    throw new GatewayError(
      'invalid_request',
      // One line, as every CLI error: the names with what each holds, and the other way to give one.
      `Unknown data set "${given}"; the data sets that ship with Aperture: ${SHIPPED_DATASETS.map((d) => `${d.name} (${d.contents})`).join(', ')}; or give a folder holding tools.jsonl and queries.jsonl (--dataset ./my-set)`,
      { details: { dataset: given, available: SHIPPED_DATASETS.map((d) => d.name) } },
    );
  }
  const dir = path.join(root, shipped.dir);
  if (!isDirectory(dir)) {
    throw new GatewayError(
      'not_found',
      `Data set "${given}" ships with the repository (${shipped.dir}), not with this installation: run aperture eval from a clone, or give its folder`,
      { details: { dataset: given } },
    );
  }
  return dir;
}

function isDirectory(file: string): boolean {
  return existsSync(file) && statSync(file).isDirectory();
}
