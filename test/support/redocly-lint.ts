import { createConfig, lintFromString } from '@redocly/openapi-core';

/** One problem redocly reports: rule id, severity, message and where. */
export interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  pointer: string | undefined;
}

/**
 * Lints an OpenAPI document with redocly's `recommended` ruleset, as `redocly lint` would. Refs are
 * resolved inside the document only: nothing is fetched.
 */
export async function lintOpenApi(doc: unknown): Promise<LintProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(doc),
    absoluteRef: '/openapi.json',
    config,
  });
  return problems.map((p) => ({
    ruleId: p.ruleId,
    severity: p.severity,
    message: p.message,
    pointer: p.location[0]?.pointer,
  }));
}
