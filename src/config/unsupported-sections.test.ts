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
      state: { backend: 'redis' },
    });
    expect(() => assertSupportedSections(config, 'gw.yaml')).toThrow(/gw\.yaml: state: not supported/);
  });

  it('accepts toolsets and auth, which this build honours', () => {
    const { config } = parseConfigValue({
      toolsets: [{ name: 'x' }],
      auth: { apiKeys: [{ name: 'ci', key: 'k'.repeat(32), toolsets: ['x'] }] },
    });
    expect(() => assertSupportedSections(config, 'gw.yaml')).not.toThrow();
  });
});
