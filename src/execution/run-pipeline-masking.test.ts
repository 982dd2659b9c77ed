import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { errorForSurface } from '../foundation/model/error-hints.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { ToolBackend } from '../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { RunPipeline } from './run-pipeline.js';

const caller = { identity: 'test' };
const SECRET = 'hunter2-secret';

function pipelineWith(execute: ToolBackend['execute']): RunPipeline {
  const catalog = new Catalog();
  catalog.replaceSource('s', [makeEntry(makeTool('m:tool'), execute)]);
  return new RunPipeline({
    catalog,
    validator: new SchemaValidator(),
    maskText: (text) => text.replaceAll(SECRET, '[REDACTED]'),
  });
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('RunPipeline masking keeps what the caller needs', () => {
  it('keeps the hint of a masked error, so the caller is still told how to find tool ids', async () => {
    const pipeline = pipelineWith(async () => 'ok');
    const error = await failure(pipeline.run({ toolId: `m:${SECRET}`, args: {}, caller }));
    expect(error.code).toBe('tool_not_found');
    expect(error.message).toBe('No tool "m:[REDACTED]"');
    expect(error.hint).toBe('find_tool');
    expect(errorForSurface(error, 'mcp').message).toBe(
      'No tool "m:[REDACTED]"; use search_tools to find tool ids',
    );
  });

  it('keeps the retryability of a masked error', async () => {
    const pipeline = pipelineWith(async () => {
      throw new GatewayError('backend_unavailable', `auth failed for ${SECRET}`, { retryable: false });
    });
    const error = await failure(pipeline.run({ toolId: 'm:tool', args: {}, caller }));
    expect(error.message).toBe('auth failed for [REDACTED]');
    expect(error.retryable).toBe(false);
  });

  it('does not carry the unmasked original as the cause of a masked error', async () => {
    const pipeline = pipelineWith(async () => {
      throw new Error(`auth failed for ${SECRET}`);
    });
    const error = await failure(pipeline.run({ toolId: 'm:tool', args: {}, caller }));
    expect(error.message).toBe('auth failed for [REDACTED]');
    expect(error.cause).toBeUndefined();
  });
});
