import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import type { ToolAnnotations } from '../../foundation/model/tool.js';
import { deriveSkillHints } from './skill-annotations.js';

const tool = (annotations: ToolAnnotations) => makeTool('ns:t', { annotations });
const readOnly = tool({ readOnlyHint: true, openWorldHint: false });
const idempotentWrite = tool({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});
const destructive = tool({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });

describe('deriveSkillHints', () => {
  it('read-only only when every step is; a read-only tool counts as idempotent', () => {
    expect(deriveSkillHints([readOnly, readOnly])).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(deriveSkillHints([readOnly, idempotentWrite])).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('destructive if any step is, or leaves destructiveHint unset on a writing tool (MCP default)', () => {
    expect(deriveSkillHints([readOnly, destructive]).destructiveHint).toBe(true);
    expect(deriveSkillHints([readOnly, destructive]).idempotentHint).toBe(false);
    expect(deriveSkillHints([tool({ openWorldHint: false })]).destructiveHint).toBe(true);
  });

  it('open-world if any step is, and unset openWorldHint counts as open', () => {
    expect(deriveSkillHints([readOnly, tool({ readOnlyHint: true })]).openWorldHint).toBe(true);
  });

  it('a step whose tool is unknown is the worst case on every hint', () => {
    expect(deriveSkillHints([readOnly, undefined])).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
});
