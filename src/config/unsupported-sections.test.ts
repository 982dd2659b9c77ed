import { describe, expect, it } from 'vitest';
import { parseConfigValue } from './load-config.js';
import { assertSupportedSections } from './unsupported-sections.js';

describe('assertSupportedSections', () => {
  it('accepts the defaults and empty later sections', () => {
    expect(() =>
      assertSupportedSections(parseConfigValue({ servers: {}, toolsets: [] }).config, 'x'),
    ).not.toThrow();
  });

  it('refuses set sections this build cannot honour, naming each', () => {
    const { config } = parseConfigValue({
      servers: { everything: { command: 'npx', args: ['x'] } },
      toolsets: [{ name: 'x' }],
      auth: { apiKeys: [] },
    });
    expect(() => assertSupportedSections(config, 'gw.yaml')).toThrow(
      /gw\.yaml: toolsets, auth: not supported/,
    );
  });
});
