import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { toolText } from './tool-text.js';

describe('toolText (what a tool is embedded by)', () => {
  it('reads namespace and name as words, then title, tags, description and parameters', () => {
    const tool = makeTool('github:createPullRequest', {
      title: 'Open a PR',
      tags: ['vcs'],
      description: 'Opens a pull request.',
      inputSchema: {
        type: 'object',
        properties: { base_branch: { type: 'string', description: 'Branch to merge into' } },
      },
    });
    expect(toolText(tool)).toBe(
      'github: create pull request. Open a PR. vcs. Opens a pull request. Parameters: base branch. Branch to merge into',
    );
  });

  it('cuts a long description, and is stable for an unchanged tool', () => {
    const tool = makeTool('a:b', { description: 'x'.repeat(5000) });
    expect(toolText(tool).length).toBeLessThan(1100);
    expect(toolText({ ...tool })).toBe(toolText(tool));
  });
});
