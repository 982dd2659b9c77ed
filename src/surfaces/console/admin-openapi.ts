/**
 * The management API (`/api/admin/…`, `admin-routes.ts`) as OpenAPI 3.1 path items, for the REST
 * document. `errors(body)` gives the error responses of an operation (with or without a body),
 * as the document declares them for every other route.
 */
export function adminPaths(errors: (body: boolean) => Record<string, unknown>): Record<string, unknown> {
  const object = (description: string) => ({
    description,
    content: { 'application/json': { schema: { type: 'object' } } },
  });
  type Json = Record<string, unknown>;
  /** One admin operation; an operation with a body also answers the errors of a bad body. */
  const operation = (
    method: 'get' | 'post',
    operationId: string,
    summary: string,
    ok: Json,
    input: { path?: [name: string, description: string]; body?: Json } = {},
  ) => ({
    [method]: {
      operationId,
      summary,
      tags: ['admin'],
      ...(input.path && {
        parameters: [
          {
            name: input.path[0],
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: input.path[1],
          },
        ],
      }),
      ...(input.body && {
        requestBody: { required: true, content: { 'application/json': { schema: input.body } } },
      }),
      responses: { '200': ok, ...errors(input.body !== undefined) },
    },
  });
  const get = (operationId: string, summary: string, ok: Json) => operation('get', operationId, summary, ok);
  return {
    '/api/admin/session': get(
      'adminSession',
      'Who the credential is: identity, admin, granted toolsets, whether auth and code mode are on',
      object('The caller'),
    ),
    '/api/admin/tools/{id}/formats': operation(
      'get',
      'adminToolFormats',
      'One tool in every export format (MCP, OpenAI, Anthropic, Gemini, A2A) and as TypeScript',
      object('`{ tool, formats: { <format>: { value, warnings } } }`'),
      { path: ['id', 'Tool id'] },
    ),
    '/api/admin/tokens': get(
      'adminTokens',
      "What tools/list costs an agent for the caller's scope (or ?toolset=): flat against metatools, in tokens",
      object('`{ flat, metatools, tools, counter }`'),
    ),
    '/api/admin/toolsets': get(
      'adminToolsets',
      'The toolsets the caller may use, each with its tool count, endpoint and members (first 100)',
      object('`{ toolsets: [...] }`'),
    ),
    '/api/admin/skills': get(
      'adminSkills',
      'The skills the caller can see, with their inputs and steps (as describe_skill)',
      object('`{ skills: [...] }`'),
    ),
    '/api/admin/skills/{name}/plan': operation(
      'post',
      'adminPlanSkill',
      'Plan a skill without running it (as plan_skill); body `{ inputs }`',
      object('The plan'),
      { path: ['name', 'Skill name'], body: { type: 'object', properties: { inputs: { type: 'object' } } } },
    ),
    '/api/admin/sources': get(
      'adminSources',
      'Every remote source with its state, transport, protocol revision, tool count and last error; MCP servers with connectedAt and their last stderr lines, masked; OAuth servers with their token status (admin)',
      object('`{ sources: [...] }`'),
    ),
    '/api/admin/sources/{name}/reconnect': operation(
      'post',
      'adminReconnect',
      'Drop and reconnect a downstream MCP server now (admin)',
      object('`{ success: true }` once the attempt ended'),
      { path: ['name', 'Server key'] },
    ),
    '/api/admin/sources/{name}/login': operation(
      'post',
      'adminOAuthLogin',
      "Start an OAuth login the gateway completes at /oauth/callback: the caller's own on a per-user server, the shared token set (admin) otherwise",
      object('`{ loginUrl }` to open, or `{ authorized: true }` when no person was needed'),
      { path: ['name', 'Server key'] },
    ),
    '/api/admin/trust': get(
      'adminTrust',
      'Trust on first use: the mode, and the tools quarantined or warned about with what changed (admin)',
      object('`{ mode, quarantined: [...], warned: [...] }`'),
    ),
    '/api/admin/trust/approve': operation(
      'post',
      'adminTrustApprove',
      'Approve the pending versions of tools: they rejoin the catalog at once (admin)',
      object('What each id came to'),
      {
        body: {
          type: 'object',
          required: ['ids'],
          properties: { ids: { type: 'array', items: { type: 'string' }, minItems: 1 } },
        },
      },
    ),
    '/api/admin/activity': get(
      'adminActivity',
      'The live call log as Server-Sent Events (`event: call`), resumable with Last-Event-ID (admin)',
      { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
    ),
    '/api/admin/activity/stats': get(
      'adminActivityStats',
      'Per tool over the last hour: calls, errors, p50 and p95 latency; and per minute (of ?tool= or all) (admin)',
      object('`{ tools: [...], series: [{ start, calls, errors, p50Ms, p95Ms }] }`'),
    ),
    '/api/admin/config': get(
      'adminConfig',
      'The effective config with every secret masked (admin)',
      object('`{ config }`'),
    ),
    '/api/admin/config/validate': operation(
      'post',
      'adminValidateConfig',
      '`aperture config validate` on a pasted config (admin)',
      object('`{ valid: true, warnings, notices }` or `{ valid: false, error: { code, message, issues? } }`'),
      {
        body: {
          type: 'object',
          properties: { text: { type: 'string' }, format: { type: 'string', enum: ['yaml', 'json'] } },
          required: ['text'],
        },
      },
    ),
    '/api/admin/code/api': get(
      'adminCodeApi',
      "The TypeScript declarations of code mode's `tools` for the caller's scope (as code_api)",
      object('`{ language, declarations, tools }`'),
    ),
    '/api/admin/code': operation(
      'post',
      'adminExecuteCode',
      "Run a code-mode program in the caller's scope (as execute_code)",
      object('`{ value, logs, toolCalls, durationMs }`'),
      {
        body: {
          type: 'object',
          properties: {
            code: { type: 'string', minLength: 1 },
            language: { type: 'string', enum: ['javascript', 'typescript'] },
          },
          required: ['code'],
        },
      },
    ),
  };
}
