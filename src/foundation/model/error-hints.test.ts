import { describe, expect, it } from 'vitest';
import { errorForSurface } from './error-hints.js';
import { GatewayError } from './gateway-error.js';

describe('errorForSurface', () => {
  const missing = new GatewayError('tool_not_found', 'No tool "a:b"', { toolId: 'a:b', hint: 'find_tool' });

  it("words the hint in each surface's own terms, once", () => {
    expect(errorForSurface(missing, 'mcp').message).toBe('No tool "a:b"; use search_tools to find tool ids');
    expect(errorForSurface(missing, 'rest').message).toContain('GET /api/tools?q=');
    expect(errorForSurface(missing, 'cli').message).toContain('aperture search');
    expect(errorForSurface(missing, 'a2a').message).toContain('text message');
    const once = errorForSurface(missing, 'rest');
    expect(errorForSurface(once, 'rest')).toBe(once);
    expect(once.toJSON()).toMatchObject({ code: 'tool_not_found', tool_id: 'a:b', retryable: false });
  });

  it('words the toolset hint too', () => {
    const noToolset = new GatewayError('not_found', 'No toolset "x"', { hint: 'find_toolset' });
    expect(errorForSurface(noToolset, 'mcp').message).toBe(
      'No toolset "x"; list_toolsets names the toolsets',
    );
    expect(errorForSurface(noToolset, 'rest').message).not.toContain('list_toolsets');
  });

  it('keeps the hint through withToolId and leaves errors without one alone', () => {
    expect(errorForSurface(missing.withToolId('x:y'), 'cli').message).toContain('aperture search');
    const plain = new GatewayError('execution_failed', 'boom');
    expect(errorForSurface(plain, 'mcp')).toBe(plain);
  });

  it('keeps retryable, details, tool id and cause, and consumes the hint', () => {
    const cause = new Error('gone');
    const error = new GatewayError('tool_not_found', 'No tool "a:b"', {
      retryable: true,
      details: { id: 'a:b' },
      toolId: 'a:b',
      cause,
      hint: 'find_tool',
    });
    const shown = errorForSurface(error, 'rest');
    expect(shown).toMatchObject({
      code: 'tool_not_found',
      retryable: true,
      details: { id: 'a:b' },
      toolId: 'a:b',
    });
    expect(shown.cause).toBe(cause);
    expect(shown.hint).toBeUndefined();
  });
});
