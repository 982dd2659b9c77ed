import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { CedarPolicies } from './cedar-policies.js';
import { PolicyEngine, type PolicyPreset } from './policy-engine.js';
import type { PolicyRuleDefinition } from './policy-types.js';

/** The `policies` section as the engine reads it (the config's parsed shape). */
export interface PoliciesSettings {
  rules: readonly PolicyRuleDefinition[];
  preset?: PolicyPreset | undefined;
  /** Cedar policy file, relative to `baseDir`. */
  cedar?: string | undefined;
  cedarSchema?: string | undefined;
  hideDenied: boolean;
}

/**
 * Builds the engine of a `policies` section: compiles the rules and reads, parses and (with a
 * schema) validates the Cedar file. A Cedar file that cannot be read or does not parse is
 * `config_invalid`, naming the file and the position.
 */
export async function loadPolicyEngine(settings: PoliciesSettings, baseDir: string): Promise<PolicyEngine> {
  let cedar: CedarPolicies | undefined;
  if (settings.cedar !== undefined) {
    const file = path.resolve(baseDir, settings.cedar);
    const text = await readText(file, 'policies.cedar');
    const schema =
      settings.cedarSchema === undefined
        ? undefined
        : await readText(path.resolve(baseDir, settings.cedarSchema), 'policies.cedarSchema');
    cedar = await CedarPolicies.load(text, settings.cedar, schema);
  }
  return new PolicyEngine({
    rules: settings.rules,
    preset: settings.preset,
    cedar,
    hideDenied: settings.hideDenied,
  });
}

async function readText(file: string, key: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new GatewayError('config_invalid', `${key}: cannot read ${file}: ${(error as Error).message}`, {
      details: { path: key },
    });
  }
}
