import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';

describe('an override whose schema pattern needs backtracking', () => {
  it('is refused when the config loads, naming the override and the pattern', () => {
    const text = [
      'overrides:',
      '  "fs:read_file":',
      '    inputSchema:',
      '      properties:',
      '        path: { type: string, pattern: "^(?!/etc).*$" }',
      '',
    ].join('\n');
    expect(() => parseConfigText(text, 'yaml')).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringMatching(
          /overrides.*properties\/path\/pattern: pattern "\^\(\?!\/etc\)\.\*\$" is not supported/,
        ),
      }),
    );
    // A linear pattern, however exponential on a backtracking engine, is fine.
    expect(() => parseConfigText(text.replace('^(?!/etc).*$', '^(a+)+$'), 'yaml')).not.toThrow();
  });
});
