import { z } from 'zod';
import {
  ActivityStatsSchema,
  AdminSessionSchema,
  ApprovalAnswerSchema,
  ApprovalListSchema,
  AuditListSchema,
  CacheInvalidateRequestSchema,
  CacheInvalidationSchema,
  CodeApiSchema,
  CodeRequestSchema,
  CodeResultSchema,
  ConfigAnswerSchema,
  ConfigCheckRequestSchema,
  ConfigCheckSchema,
  InstallPlanSchema,
  InstallRequestSchema,
  LoginStartSchema,
  RegistrySearchSchema,
  ReloadAnswerSchema,
  SkillListSchema,
  SkillPlanRequestSchema,
  SkillPlanSchema,
  SourceListSchema,
  SuccessSchema,
  TokenCostsSchema,
  ToolFormatsSchema,
  ToolsetListSchema,
  TrustApprovalSchema,
  TrustApproveRequestSchema,
  TrustStateSchema,
} from './admin-schemas.js';

export type * from './admin-schemas.js';

/** The answer of an operation that streams Server-Sent Events instead of one JSON body. */
export const EVENT_STREAM = 'text/event-stream';

/**
 * One operation of the management API: its route, what it reads and what it answers. The handler
 * registered for it (`AdminRouter.serve`) gets its parameters and body parsed by these schemas and
 * may only return the answer's shape; the OpenAPI document is generated from the same entry.
 */
export interface AdminOperation {
  method: 'get' | 'post';
  /** The path in OpenAPI form (`{name}` for a parameter). */
  path: `/api/admin/${string}`;
  summary: string;
  /**
   * What the operation touches that only an admin may, when auth is on ("The configuration"):
   * the admin guard refuses anyone else with 403 `forbidden` naming it (401 `unauthorized` without
   * credentials). Absent: the caller's own scope decides, as on every other surface.
   */
  admin?: string;
  /** The path parameters. */
  params?: z.ZodObject<Record<string, z.ZodString>>;
  /** The query parameters (every one optional). */
  query?: z.ZodObject<Record<string, z.ZodOptional<z.ZodString>>>;
  /** The JSON body; absent: the operation reads none. */
  body?: z.ZodType;
  /**
   * How a body failing its schema is refused, always with 400. A string (default "Invalid
   * request"): `validation_input`, the message "<it>: <the first bad field> <what is wrong>" and
   * every bad field in `details.issues`. An object: its code and its message alone — for an
   * operation whose clients already know its refusal in that form.
   */
  invalidBody?: string | { code: 'invalid_request'; message: string };
  /** The 200 answer: a JSON body's schema, or a stream of events. */
  response: z.ZodType | typeof EVENT_STREAM;
  /** The 200 answer in words. */
  answers: string;
}

/** Keeps an entry's exact type (its schemas) while checking it is an operation. */
function operation<const O extends AdminOperation>(entry: O): O {
  return entry;
}

const ServerName = z.object({ name: z.string().describe('The server key in the config') });
const ApprovalId = z.object({ id: z.string().describe('The held call, as the list names it') });

/**
 * The management API behind the web console, keyed by operationId: every `/api/admin/…` route
 * the gateway serves, whichever sub-app serves it (the console's, trust's, reload's).
 */
export const ADMIN_API = {
  adminSession: operation({
    method: 'get',
    path: '/api/admin/session',
    summary: 'Who the credential is: identity, admin, granted toolsets, whether auth and code mode are on',
    response: AdminSessionSchema,
    answers: 'The caller',
  }),
  adminToolFormats: operation({
    method: 'get',
    path: '/api/admin/tools/{id}/formats',
    summary: 'One tool in every export format (MCP, OpenAI, Anthropic, Gemini, A2A) and as TypeScript',
    params: z.object({ id: z.string().describe('Tool id') }),
    response: ToolFormatsSchema,
    answers: 'The tool in every format, with what each could not carry',
  }),
  adminTokens: operation({
    method: 'get',
    path: '/api/admin/tokens',
    summary:
      "What tools/list costs an agent for the caller's scope (or ?toolset=): flat against metatools, in tokens",
    query: z.object({ toolset: z.string().optional().describe('Narrow to this toolset') }),
    response: TokenCostsSchema,
    answers: 'The token costs',
  }),
  adminToolsets: operation({
    method: 'get',
    path: '/api/admin/toolsets',
    summary: 'The toolsets the caller may use, each with its tool count, endpoint and members (first 100)',
    response: ToolsetListSchema,
    answers: 'The toolsets',
  }),
  adminSkills: operation({
    method: 'get',
    path: '/api/admin/skills',
    summary: 'The skills the caller can see, with their inputs and steps (as describe_skill)',
    response: SkillListSchema,
    answers: 'The skills',
  }),
  adminPlanSkill: operation({
    method: 'post',
    path: '/api/admin/skills/{name}/plan',
    summary: 'Plan a skill without running it (as plan_skill); body `{ inputs }`',
    params: z.object({ name: z.string().describe('Skill name') }),
    body: SkillPlanRequestSchema,
    response: SkillPlanSchema,
    answers: 'The plan',
  }),
  adminSources: operation({
    method: 'get',
    path: '/api/admin/sources',
    summary:
      'Every remote source with its state, transport, protocol revision, tool count and last error; MCP servers with connectedAt and their last stderr lines, masked; OAuth servers with their token status (admin)',
    admin: 'The sources of every toolset',
    response: SourceListSchema,
    answers: 'The sources',
  }),
  adminReconnect: operation({
    method: 'post',
    path: '/api/admin/sources/{name}/reconnect',
    summary: 'Drop and reconnect a downstream MCP server now (admin)',
    admin: 'Reconnecting a server',
    params: ServerName,
    response: SuccessSchema,
    answers: 'Once the attempt ended',
  }),
  adminOAuthLogin: operation({
    method: 'post',
    path: '/api/admin/sources/{name}/login',
    summary:
      "Start an OAuth login the gateway completes at /oauth/callback: the caller's own on a per-user server, the shared token set (admin) otherwise",
    params: ServerName,
    response: LoginStartSchema,
    answers: '`{ loginUrl }` to open, or `{ authorized: true }` when no person was needed',
  }),
  adminTrust: operation({
    method: 'get',
    path: '/api/admin/trust',
    summary:
      'Trust on first use: the mode, and the tools quarantined or warned about with what changed (admin)',
    admin: 'Trust management',
    response: TrustStateSchema,
    answers: 'The trust state',
  }),
  adminTrustApprove: operation({
    method: 'post',
    path: '/api/admin/trust/approve',
    summary: 'Approve the pending versions of tools: they rejoin the catalog at once (admin)',
    admin: 'Trust management',
    body: TrustApproveRequestSchema,
    // The refusal this route gave before the contract, which clients may match: kept.
    invalidBody: {
      code: 'invalid_request',
      message: 'The body must be {"ids": ["namespace:tool", ...]} with at least one id',
    },
    response: TrustApprovalSchema,
    answers: 'What each id came to',
  }),
  adminActivity: operation({
    method: 'get',
    path: '/api/admin/activity',
    summary:
      'The live call log as Server-Sent Events (`event: call`, data: one call), resumable with Last-Event-ID (admin)',
    admin: 'The activity of every toolset',
    query: z.object({ after: z.string().optional().describe('Replay the calls after this sequence number') }),
    response: EVENT_STREAM,
    answers: 'An event stream',
  }),
  adminActivityStats: operation({
    method: 'get',
    path: '/api/admin/activity/stats',
    summary:
      'Per tool over the last hour: calls, errors, p50 and p95 latency; and per minute (of ?tool= or all) (admin)',
    admin: 'The activity of every toolset',
    query: z.object({ tool: z.string().optional().describe('The per-minute series of this tool only') }),
    response: ActivityStatsSchema,
    answers: 'The figures',
  }),
  adminConfig: operation({
    method: 'get',
    path: '/api/admin/config',
    summary: 'The effective config with every secret masked (admin)',
    admin: 'The configuration',
    response: ConfigAnswerSchema,
    answers: 'The config',
  }),
  adminValidateConfig: operation({
    method: 'post',
    path: '/api/admin/config/validate',
    summary: '`aperture config validate` on a pasted config (admin)',
    admin: 'Validating a config',
    body: ConfigCheckRequestSchema,
    response: ConfigCheckSchema,
    answers: 'Valid with warnings and notices, or invalid with the error',
  }),
  adminCodeApi: operation({
    method: 'get',
    path: '/api/admin/code/api',
    summary: "The TypeScript declarations of code mode's `tools` for the caller's scope (as code_api)",
    response: CodeApiSchema,
    answers: 'The declarations',
  }),
  adminExecuteCode: operation({
    method: 'post',
    path: '/api/admin/code',
    summary: "Run a code-mode program in the caller's scope (as execute_code)",
    body: CodeRequestSchema,
    invalidBody: 'Invalid code request',
    response: CodeResultSchema,
    answers: 'What the program returned, logged and called',
  }),
  adminApprovals: operation({
    method: 'get',
    path: '/api/admin/approvals',
    summary: 'The calls held for approval on this gateway (`effect: approve`), waiting for an admin (admin)',
    admin: 'Approvals',
    response: ApprovalListSchema,
    answers: 'The held calls, oldest first',
  }),
  adminApprove: operation({
    method: 'post',
    path: '/api/admin/approvals/{id}/approve',
    summary: 'Approve a held call: it runs and its caller gets its result (admin)',
    admin: 'Approvals',
    params: ApprovalId,
    response: ApprovalAnswerSchema,
    answers: 'The call was approved',
  }),
  adminDeny: operation({
    method: 'post',
    path: '/api/admin/approvals/{id}/deny',
    summary: 'Deny a held call: its caller gets `approval_denied` (admin)',
    admin: 'Approvals',
    params: ApprovalId,
    response: ApprovalAnswerSchema,
    answers: 'The call was denied',
  }),
  adminAudit: operation({
    method: 'get',
    path: '/api/admin/audit',
    summary: 'The last lines of the audit trail (?limit=, default 200, at most 5000) (admin)',
    admin: 'The audit trail',
    query: z.object({ limit: z.string().optional().describe('How many lines, from the end') }),
    response: AuditListSchema,
    answers: 'The lines, oldest first',
  }),
  adminCacheInvalidate: operation({
    method: 'post',
    path: '/api/admin/cache/invalidate',
    summary:
      'Drop cached results: of one tool (`tool`), of a namespace (`namespace`) or all; with Redis, on every gateway (admin)',
    admin: 'The result cache',
    body: CacheInvalidateRequestSchema,
    response: CacheInvalidationSchema,
    answers: 'What was dropped',
  }),
  reloadConfig: operation({
    method: 'post',
    path: '/api/admin/reload',
    summary: 'Read the config file again and apply what changed (an admin identity when auth is on)',
    admin: 'Reloading the config',
    response: ReloadAnswerSchema,
    answers:
      'What changed: sections, servers added/removed/changed, what was applied and what needs a restart',
  }),
  adminRegistrySearch: operation({
    method: 'get',
    path: '/api/admin/registry/servers',
    summary:
      'Search the configured MCP registries (?search=, ?limit=): what each server runs with and needs (admin)',
    admin: 'Installing servers',
    query: z.object({
      search: z.string().optional().describe('Words to look for; none: list servers'),
      limit: z.string().optional().describe('Results at most (default 30, at most 200)'),
    }),
    response: RegistrySearchSchema,
    answers: 'The servers found',
  }),
  adminInstallPlan: operation({
    method: 'post',
    path: '/api/admin/registry/plan',
    summary:
      'What installing a registry server would write: its entry, transport, sandbox and the secrets to store (admin)',
    admin: 'Installing servers',
    body: InstallRequestSchema,
    response: InstallPlanSchema,
    answers: 'The plan; nothing written',
  }),
  adminInstallServer: operation({
    method: 'post',
    path: '/api/admin/registry/install',
    summary: 'Install a registry server into the config file, as `aperture add` does, and reload (admin)',
    admin: 'Installing servers',
    body: InstallRequestSchema,
    response: InstallPlanSchema,
    answers: 'The entry written; its tools are served or quarantined per its trust tier',
  }),
} as const satisfies Record<string, AdminOperation>;

/** The operationIds of the management API. */
export type AdminOperationId = keyof typeof ADMIN_API;
