import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import type { ConfigDiff } from '../../config/config-diff.js';
import type { ApertureConfig } from '../../config/config-schema.js';
import { parseConfigValue } from '../../config/load-config.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import { growingMasker } from '../../operations/secrets/growing-masker.js';
import { GatewayParts } from './feature.js';
import { policies } from './policies.js';

function partsFor(config: ApertureConfig, baseDir: string): GatewayParts {
  const parts = new GatewayParts({
    log: silentLogger,
    loaded: () => ({ config, baseDir, warnings: [] }),
    maskSecrets: growingMasker([]),
    calls: new InFlightCalls(),
    validator: new SchemaValidator(),
    reload: () => Promise.reject(new Error('no reload here')),
    readiness: () => ({ ready: true }),
    options: { http: false },
  });
  parts.provide('catalog', new Catalog());
  return parts;
}

const tool = makeTool('demo:repo_write');
const caller = { identity: 'alice' };
const decide = (parts: GatewayParts) =>
  parts.need('policyEnforcement').engine.decide({ tool, args: {}, caller, surface: 'mcp' }).effect;

describe('the policies feature', () => {
  it('provides the rules of the config, reloads them live and tells sessions their lists changed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-policies-'));
    const { config } = parseConfigValue({ policies: [{ name: 'no', effect: 'deny', tools: ['demo:*'] }] });
    const parts = partsFor(config, dir);
    const feature = await policies(config, parts);
    expect(decide(parts)).toBe('deny');

    const catalog = parts.need('catalog');
    const version = catalog.version;
    const next = parseConfigValue({ policies: [{ name: 'ok', effect: 'allow' }] }).config;
    await feature.reload?.policies?.({ config: next, baseDir: dir, warnings: [] }, {} as ConfigDiff);
    expect(decide(parts)).toBe('allow');
    expect(catalog.version).not.toBe(version);
  });

  it('refuses a Cedar file that does not parse, at start and at a reload, keeping the rules in force', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-policies-'));
    await writeFile(path.join(dir, 'bad.cedar'), 'permit(principal, action, resource');
    const bad = parseConfigValue({ policies: { cedar: './bad.cedar' } }).config;
    await expect(policies(bad, partsFor(bad, dir))).rejects.toMatchObject({ code: 'config_invalid' });

    const { config } = parseConfigValue({ policies: [{ name: 'no', effect: 'deny' }] });
    const parts = partsFor(config, dir);
    const feature = await policies(config, parts);
    await expect(
      feature.reload?.policies?.({ config: bad, baseDir: dir, warnings: [] }, {} as ConfigDiff),
    ).rejects.toMatchObject({ code: 'config_invalid' });
    expect(decide(parts)).toBe('deny');
  });
});
