import type { Tool } from '../../foundation/model/tool.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import type { HttpClient } from './http-client.js';
import type { OperationBinding } from './operation-binding.js';
import { buildRequest, type RequestTarget } from './request-builder.js';
import { readResponse } from './response-reader.js';

/**
 * Runs one OpenAPI operation: arguments → HTTP request → raw result. Failures are GatewayErrors
 * from the request builder (`validation_input`), the HTTP client (`forbidden`, `timeout`,
 * `cancelled`, `backend_unavailable`) or the response reader (`execution_failed`).
 */
export class OpenApiBackend implements ToolBackend {
  constructor(
    private readonly binding: OperationBinding,
    private readonly target: RequestTarget,
    private readonly client: HttpClient,
  ) {}

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const request = buildRequest(this.binding, args, this.target);
    ctx.log.debug(
      { tool: tool.id, method: request.method, url: request.url.origin + request.url.pathname },
      'openapi call',
    );
    const response = await this.client.send({ ...request, signal: ctx.signal });
    return readResponse(response);
  }
}
