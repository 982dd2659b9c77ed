import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import type { ToolBackend } from '../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import type { RunMiddleware } from './run-middleware.js';
import { RunPipeline, type RunPipelineOptions } from './run-pipeline.js';

const caller = { identity: 'test' };
const schema = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
  additionalProperties: false,
};

function setup(tools: [Tool, ToolBackend['execute']][], options: Partial<RunPipelineOptions> = {}) {
  const catalog = new Catalog();
  catalog.replaceSource(
    's',
    tools.map(([tool, execute]) => makeEntry(tool, execute)),
  );
  return new RunPipeline({ catalog, validator: new SchemaValidator(), ...options });
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a failure');
}

describe('RunPipeline', () => {
  it('answers tool_quarantined, with why, for a tool the catalog gate withholds', async () => {
    const gate = {
      check: (entry: { tool: Tool }) =>
        entry.tool.id === 'ns:held'
          ? {
              reason: 'changed' as const,
              message: 'Tool "ns:held" is quarantined',
              details: { changed: ['description'] },
            }
          : undefined,
    };
    const catalog = new Catalog({ gate });
    catalog.replaceSource('s', [makeEntry(makeTool('ns:held')), makeEntry(makeTool('ns:free'))]);
    const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
    const error = await failure(pipeline.run({ toolId: 'ns:held', args: {}, caller }));
    expect(error.toJSON()).toMatchObject({
      code: 'tool_quarantined',
      tool_id: 'ns:held',
      details: { changed: ['description'], stage: 'resolve' },
    });
    expect(() => pipeline.resolve('ns:held')).toThrow(expect.objectContaining({ code: 'tool_quarantined' }));
    // Outside the caller's scope it does not exist, quarantined or not.
    const outside = await failure(
      pipeline.run({ toolId: 'ns:held', args: {}, caller, isVisible: (t) => t.id === 'ns:free' }),
    );
    expect(outside.code).toBe('tool_not_found');
  });

  it('runs a tool and normalises an object into structuredContent and text', async () => {
    const pipeline = setup([
      [makeTool('m:double', { inputSchema: schema }), async (_t, args) => ({ n: (args.n as number) * 2 })],
    ]);
    const result = await pipeline.run({ toolId: 'm:double', args: { n: 21 }, caller });
    expect(result.structuredContent).toEqual({ n: 42 });
    expect(result.content).toEqual([{ type: 'text', text: '{"n":42}' }]);
  });

  it('reports unknown and malformed ids and out-of-scope tools as tool_not_found', async () => {
    const pipeline = setup([[makeTool('m:a'), async () => 'x']]);
    expect((await failure(pipeline.run({ toolId: 'm:zzz', args: {}, caller }))).code).toBe('tool_not_found');
    expect((await failure(pipeline.run({ toolId: 'garbage', args: {}, caller }))).code).toBe(
      'tool_not_found',
    );
    const hidden = await failure(pipeline.run({ toolId: 'm:a', args: {}, caller, isVisible: () => false }));
    expect(hidden).toMatchObject({ code: 'tool_not_found', toolId: 'm:a' });
  });

  // Regression: 10,000-deep data to json:query overflowed the tool's stack and came back as the
  // server's execution_failed ("Maximum call stack size exceeded").
  it('refuses arguments nested too deep as validation_input, before the backend runs', async () => {
    let ran = false;
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    const pipeline = setup([
      [
        makeTool('json:walk', { inputSchema: { type: 'object' } }),
        async (_t, args) => {
          ran = true;
          return { depth: depthOf(args) };
        },
      ],
    ]);
    let data: unknown = 1;
    for (let i = 0; i < 10_000; i++) data = { a: data };
    const error = await failure(pipeline.run({ toolId: 'json:walk', args: { data }, caller }));
    expect(error.code).toBe('validation_input');
    expect(error.message).toMatch(/nested deeper than 128 levels \(at \/data\/a\/a/);
    expect(ran).toBe(false);
    // Ordinary nesting still runs.
    let shallow: unknown = 1;
    for (let i = 0; i < 50; i++) shallow = { a: shallow };
    const result = await pipeline.run({ toolId: 'json:walk', args: { data: shallow }, caller });
    expect(result.structuredContent).toEqual({ depth: 51 });
  });

  it('refuses bad arguments with validation_input naming the path, before the backend runs', async () => {
    let ran = false;
    const pipeline = setup([
      [
        makeTool('m:a', { inputSchema: schema }),
        async () => {
          ran = true;
        },
      ],
    ]);
    const error = await failure(pipeline.run({ toolId: 'm:a', args: { n: 'x', extra: 1 }, caller }));
    expect(error.code).toBe('validation_input');
    expect(error.message).toContain('/n: must be integer');
    expect(error.message).toContain('/extra');
    expect((await failure(pipeline.run({ toolId: 'm:a', args: [1], caller }))).code).toBe('validation_input');
    expect(ran).toBe(false);
  });

  it('turns a throwing handler into execution_failed with its message', async () => {
    const pipeline = setup([
      [
        makeTool('m:boom'),
        async () => {
          throw new Error('disk on fire');
        },
      ],
    ]);
    const error = await failure(pipeline.run({ toolId: 'm:boom', args: {}, caller }));
    expect(error).toMatchObject({ code: 'execution_failed', message: 'disk on fire', toolId: 'm:boom' });
  });

  it('keeps the code of a GatewayError thrown by a handler', async () => {
    const pipeline = setup([
      [
        makeTool('m:v'),
        async () => {
          throw new GatewayError('validation_input', 'source is empty');
        },
      ],
    ]);
    expect((await failure(pipeline.run({ toolId: 'm:v', args: {}, caller }))).code).toBe('validation_input');
  });

  it('times out a handler that never returns, and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const pipeline = setup([
      [
        makeTool('m:hang'),
        (_t, _a, ctx) => {
          signal = ctx.signal;
          return new Promise(() => {});
        },
      ],
    ]);
    const started = Date.now();
    const error = await failure(pipeline.run({ toolId: 'm:hang', args: {}, caller, timeoutMs: 50 }));
    expect(error.code).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(signal?.aborted).toBe(true);
  });

  it('honours a per-tool timeout from its metadata over the default', async () => {
    const tool = makeTool('m:slow', { metadata: { extra: { timeoutMs: 30 } } });
    const pipeline = setup([[tool, () => new Promise(() => {})]], { defaultTimeoutMs: 60_000 });
    expect((await failure(pipeline.run({ toolId: 'm:slow', args: {}, caller }))).code).toBe('timeout');
  });

  it('cancels when the caller aborts', async () => {
    const pipeline = setup([[makeTool('m:hang'), () => new Promise(() => {})]]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await failure(
      pipeline.run({ toolId: 'm:hang', args: {}, caller, signal: controller.signal }),
    );
    expect(error.code).toBe('cancelled');
  });

  it('blames the backend for output that breaks the output schema (validation_output)', async () => {
    const tool = makeTool('m:out', {
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    });
    const pipeline = setup([
      [tool, async () => ({ n: 'nope' })],
      [makeTool('m:text', { outputSchema: { type: 'object' } }), async () => 'just text'],
    ]);
    const error = await failure(pipeline.run({ toolId: 'm:out', args: {}, caller }));
    expect(error.code).toBe('validation_output');
    expect(error.message).toContain('/n');
    expect((await failure(pipeline.run({ toolId: 'm:text', args: {}, caller }))).code).toBe(
      'validation_output',
    );
  });

  it('refuses results over maxResultBytes with payload_too_large', async () => {
    const pipeline = setup([[makeTool('m:big'), async () => 'x'.repeat(5000)]], { maxResultBytes: 1000 });
    expect((await failure(pipeline.run({ toolId: 'm:big', args: {}, caller }))).code).toBe(
      'payload_too_large',
    );
  });

  it('runs middlewares outermost first around the backend, and lets them short-circuit', async () => {
    const order: string[] = [];
    const mw =
      (name: string): RunMiddleware =>
      async (_call, next) => {
        order.push(`${name}>`);
        const result = await next();
        order.push(`<${name}`);
        return result;
      };
    const shortCircuit: RunMiddleware = async (call, next) =>
      call.args.cached ? { content: [{ type: 'text', text: 'from cache' }] } : next();
    const pipeline = setup(
      [
        [
          makeTool('m:a'),
          async () => {
            order.push('backend');
            return 'ok';
          },
        ],
      ],
      { middlewares: [mw('a'), mw('b'), shortCircuit] },
    );
    await pipeline.run({ toolId: 'm:a', args: {}, caller });
    expect(order).toEqual(['a>', 'b>', 'backend', '<b', '<a']);
    const cached = await pipeline.run({ toolId: 'm:a', args: { cached: true }, caller });
    expect(cached.content[0]).toEqual({ type: 'text', text: 'from cache' });
  });

  it('asks the authorizer and stops on its refusal', async () => {
    const pipeline = setup([[makeTool('m:a'), async () => 'ok']], {
      authorizer: {
        authorize: (tool) => {
          if (tool.id === 'm:a') throw new GatewayError('forbidden', 'no');
        },
      },
    });
    expect((await failure(pipeline.run({ toolId: 'm:a', args: {}, caller }))).code).toBe('forbidden');
  });

  it('forwards progress reports from the backend', async () => {
    const updates: number[] = [];
    const pipeline = setup([
      [
        makeTool('m:p'),
        async (_t, _a, ctx) => {
          ctx.progress({ progress: 1, total: 2 });
          ctx.progress({ progress: 2, total: 2 });
          return 'ok';
        },
      ],
    ]);
    await pipeline.run({ toolId: 'm:p', args: {}, caller, progress: (u) => updates.push(u.progress) });
    expect(updates).toEqual([1, 2]);
  });

  it('keeps an isError result from a backend an error (execution_failed with its text)', async () => {
    const pipeline = setup([
      [
        makeTool('m:e'),
        async () => ({ content: [{ type: 'text', text: 'downstream said no' }], isError: true }),
      ],
    ]);
    const error = await failure(pipeline.run({ toolId: 'm:e', args: {}, caller }));
    expect(error).toMatchObject({ code: 'execution_failed', message: 'downstream said no' });
  });
});

describe('RunPipeline masking', () => {
  it('masks secret values in the message and details of errors leaving the pipeline', async () => {
    const pipeline = setup(
      [
        [
          makeTool('m:leak'),
          async () => {
            throw new GatewayError('backend_unavailable', 'auth failed for key hunter2-secret', {
              details: { header: 'Bearer hunter2-secret' },
            });
          },
        ],
      ],
      { maskText: (text) => text.replaceAll('hunter2-secret', '[REDACTED]') },
    );
    const error = await failure(pipeline.run({ toolId: 'm:leak', args: {}, caller }));
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toBe('auth failed for key [REDACTED]');
    expect(error.details).toEqual({ header: 'Bearer [REDACTED]', stage: 'execute' });
    expect(error.toolId).toBe('m:leak');
  });

  describe('drain (shutdown)', () => {
    it('lets calls in flight finish, refuses new ones, and ends the rest with backend_unavailable', async () => {
      let release: (() => void) | undefined;
      let hungSignal: AbortSignal | undefined;
      const pipeline = setup([
        [makeTool('m:soon'), () => new Promise((resolve) => (release = () => resolve('done')))],
        [
          makeTool('m:hang'),
          (_t, _a, ctx) => {
            hungSignal = ctx.signal;
            return new Promise(() => {});
          },
        ],
      ]);
      const soon = pipeline.run({ toolId: 'm:soon', args: {}, caller });
      const hang = failure(pipeline.run({ toolId: 'm:hang', args: {}, caller }));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(pipeline.calls.size).toBe(2);
      const drained = pipeline.calls.drain(200);
      const refused = await failure(pipeline.run({ toolId: 'm:soon', args: {}, caller }));
      expect(refused.code).toBe('backend_unavailable');
      expect(refused.message).toMatch(/shutting down/);
      release?.();
      expect((await soon).content).toEqual([{ type: 'text', text: 'done' }]);
      expect(await drained).toEqual({ finished: 1, cut: 1 });
      const cut = await hang;
      expect(cut.code).toBe('backend_unavailable');
      expect(cut.message).toMatch(/shutting down/);
      expect(hungSignal?.aborted).toBe(true);
      expect(pipeline.calls.size).toBe(0);
    });

    it('runs a call made inside a call in flight (its parent named) after the drain began', async () => {
      let release: (() => void) | undefined;
      let pipeline: RunPipeline | undefined;
      pipeline = setup([
        [makeTool('m:step'), async () => 'step done'],
        [
          makeTool('m:chain'),
          async (_t, _a, ctx) => {
            await new Promise<void>((resolve) => (release = resolve));
            const nested = await pipeline?.run({ toolId: 'm:step', args: {}, caller, parent: ctx.signal });
            // Without its parent named, the same call is a new one: refused.
            const orphan = await failure(
              pipeline?.run({ toolId: 'm:step', args: {}, caller }) as Promise<unknown>,
            );
            return { nested: nested?.content, orphan: orphan.code };
          },
        ],
      ]);
      const chain = pipeline.run({ toolId: 'm:chain', args: {}, caller });
      await new Promise((resolve) => setTimeout(resolve, 10));
      const drained = pipeline.calls.drain(5_000);
      release?.();
      expect((await chain).structuredContent).toEqual({
        nested: [{ type: 'text', text: 'step done' }],
        orphan: 'backend_unavailable',
      });
      expect(await drained).toEqual({ finished: 1, cut: 0 });
    });

    it('resolves at once when nothing is in flight', async () => {
      const pipeline = setup([[makeTool('m:a'), async () => 'x']]);
      expect(await pipeline.calls.drain(60_000)).toEqual({ finished: 0, cut: 0 });
    });
  });
});
