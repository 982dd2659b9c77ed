import { A2A_DRIVER } from './a2a/a2a-driver.js';
import { BUILTIN_DRIVER } from './builtin/builtin-driver.js';
import { COMMAND_DRIVER } from './command/command-driver.js';
import { ENDPOINT_DRIVER } from './endpoint/endpoint-driver.js';
import { LOCAL_DRIVER } from './local/local-driver.js';
import { MCP_DRIVER } from './mcp/mcp-driver.js';
import { OPENAPI_DRIVER } from './openapi/openapi-driver.js';
import type { SourceDriver, SourceSection } from './source-driver.js';
import { SQL_DRIVER } from './sql/sql-driver.js';

/**
 * Every kind of source, one driver each (`sources/<kind>/<kind>-driver.ts`). The kinds' unions,
 * the config's source sections, the reload diff's sections, the remote sources and the trust
 * gate's kinds all come from this list: a new kind is its folder and one entry here. The order
 * is the order sources start, `/readyz` lists them, and their sections appear in the config.
 */
export const SOURCE_DRIVERS = [
  BUILTIN_DRIVER,
  LOCAL_DRIVER,
  MCP_DRIVER,
  OPENAPI_DRIVER,
  A2A_DRIVER,
  ENDPOINT_DRIVER,
  SQL_DRIVER,
  COMMAND_DRIVER,
] as const;

type Driver = (typeof SOURCE_DRIVERS)[number];

/** Where a source's tools come from: a tool's `origin.kind`, a source's `kind`. */
export type SourceKind = Driver['kind'];

/** A driver configured entry by entry in its own config section (servers, OpenAPI services, agents). */
export type ConfiguredDriver = Extract<Driver, { section: SourceSection }>;

/** The kinds configured entry by entry: the remote sources `/readyz` and `doctor` report. */
export type ConfiguredKind = ConfiguredDriver['kind'];

/** The config sections of the configured kinds (`servers`, `openapi`, `agents`). */
export type SourceSectionName = ConfiguredDriver['section']['name'];

/** The parsed value of a driver's section. */
type SectionValue<D extends ConfiguredDriver> =
  D['section'] extends SourceSection<string, infer V, unknown> ? V : never;

/** The parsed config's source sections, by name. */
export type SourceSectionValues = { [D in ConfiguredDriver as D['section']['name']]: SectionValue<D> };

/**
 * The drivers with a config section, in list order, seen through what every section has: their
 * entries are `unknown` here, handed back to the same driver that produced them.
 */
export const CONFIGURED_DRIVERS: readonly SourceDriver<
  ConfiguredKind,
  SourceSection<SourceSectionName, unknown, unknown>
>[] = SOURCE_DRIVERS.filter((driver): driver is ConfiguredDriver => driver.section !== undefined);

/** The kinds whose tools the trust gate checks (`trustGated`). */
export const TRUST_GATED_KINDS: ReadonlySet<string> = new Set(
  SOURCE_DRIVERS.filter((driver) => driver.trustGated).map((driver) => driver.kind),
);

/** The config sections of the configured kinds, in list order: what a reload applies entry by entry. */
export const SOURCE_SECTION_NAMES: readonly SourceSectionName[] = CONFIGURED_DRIVERS.map(
  (driver) => driver.section.name,
);
