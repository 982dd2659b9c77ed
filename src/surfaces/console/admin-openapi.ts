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
  const get = (operationId: string, summary: string, ok: Record<string, unknown>) => ({
    get: { operationId, summary, tags: ['admin'], responses: { '200': ok, ...errors(false) } },
  });
  return {
    '/api/admin/session': get(
      'adminSession',
      'Who the credential is: identity, admin, granted toolsets, whether auth and code mode are on',
      object('The caller'),
    ),
    '/api/admin/tools/{id}/formats': {
      get: {
        operationId: 'adminToolFormats',
        summary: 'One tool in every export format (MCP, OpenAI, Anthropic, Gemini, A2A) and as TypeScript',
        tags: ['admin'],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Tool id' },
        ],
        responses: {
          '200': object('`{ tool, formats: { <format>: { value, warnings } } }`'),
          ...errors(false),
        },
      },
    },
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
    '/api/admin/skills/{name}/plan': {
      post: {
        operationId: 'adminPlanSkill',
        summary: 'Plan a skill without running it (as plan_skill); body `{ inputs }`',
        tags: ['admin'],
        parameters: [
          { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'Skill name' },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', properties: { inputs: { type: 'object' } } } },
          },
        },
        responses: { '200': object('The plan'), ...errors(true) },
      },
    },
    '/api/admin/sources': get(
      'adminSources',
      'Every remote source with its state, transport, protocol revision, tool count and last error; MCP servers with connectedAt and their last stderr lines, masked; OAuth servers with their token status (admin)',
      object('`{ sources: [...] }`'),
    ),
    '/api/admin/sources/{name}/reconnect': {
      post: {
        operationId: 'adminReconnect',
        summary: 'Drop and reconnect a downstream MCP server now (admin)',
        tags: ['admin'],
        parameters: [
          { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'Server key' },
        ],
        responses: { '200': object('`{ success: true }` once the attempt ended'), ...errors(false) },
      },
    },
    '/api/admin/sources/{name}/login': {
      post: {
        operationId: 'adminOAuthLogin',
        summary:
          "Start an OAuth login the gateway completes at /oauth/callback: the caller's own on a per-user server, the shared token set (admin) otherwise",
        tags: ['admin'],
        parameters: [
          { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'Server key' },
        ],
        responses: {
          '200': object('`{ loginUrl }` to open, or `{ authorized: true }` when no person was needed'),
          ...errors(false),
        },
      },
    },
    '/api/admin/trust': get(
      'adminTrust',
      'Trust on first use: the mode, and the tools quarantined or warned about with what changed (admin)',
      object('`{ mode, quarantined: [...], warned: [...] }`'),
    ),
    '/api/admin/trust/approve': {
      post: {
        operationId: 'adminTrustApprove',
        summary: 'Approve the pending versions of tools: they rejoin the catalog at once (admin)',
        tags: ['admin'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['ids'],
                properties: { ids: { type: 'array', items: { type: 'string' }, minItems: 1 } },
              },
            },
          },
        },
        responses: { '200': object('What each id came to'), ...errors(true) },
      },
    },
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
    '/api/admin/config/validate': {
      post: {
        operationId: 'adminValidateConfig',
        summary: '`aperture config validate` on a pasted config (admin)',
        tags: ['admin'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { text: { type: 'string' }, format: { type: 'string', enum: ['yaml', 'json'] } },
                required: ['text'],
              },
            },
          },
        },
        responses: {
          '200': object(
            '`{ valid: true, warnings, notices }` or `{ valid: false, error: { code, message, issues? } }`',
          ),
          ...errors(true),
        },
      },
    },
    '/api/admin/code/api': get(
      'adminCodeApi',
      "The TypeScript declarations of code mode's `tools` for the caller's scope (as code_api)",
      object('`{ language, declarations, tools }`'),
    ),
    '/api/admin/code': {
      post: {
        operationId: 'adminExecuteCode',
        summary: "Run a code-mode program in the caller's scope (as execute_code)",
        tags: ['admin'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  code: { type: 'string', minLength: 1 },
                  language: { type: 'string', enum: ['javascript', 'typescript'] },
                },
                required: ['code'],
              },
            },
          },
        },
        responses: { '200': object('`{ value, logs, toolCalls, durationMs }`'), ...errors(true) },
      },
    },
  };
}
