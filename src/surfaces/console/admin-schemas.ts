import { z } from 'zod';

/*
 * The shapes of the management API (`/api/admin/…`): every request body and every answer, as zod
 * schemas. The handlers are typed by them, `/openapi.json` is generated from them, and the web
 * console imports their inferred types, so the three cannot drift apart. Only `zod` is imported
 * here: the console's own type check (DOM, no Node types) reads this file too.
 *
 * Objects are open on purpose (`z.object`, not `strictObject`): an answer may carry more than the
 * contract names (a source's kind-specific fields), and a client must ignore what it does not know.
 */

/** A validation issue: where (JSON Pointer) and what. */
const Issue = z.object({ path: z.string(), message: z.string() });

/** `GET /api/admin/session`: who the credential is. */
export const AdminSessionSchema = z.object({
  identity: z.string().describe('The identity: API key name, JWT subject, or `anonymous` with auth off'),
  admin: z.boolean().describe('May operate the gateway: an admin key, or anyone while auth is off'),
  toolsets: z.array(z.string()).optional().describe('The toolsets the identity is confined to'),
  authEnabled: z.boolean(),
  codeMode: z.boolean().describe('Whether `POST /api/admin/code` runs programs'),
  name: z.string().describe("The gateway's name (`server.name`)"),
  version: z.string(),
});

/** `GET /api/admin/tools/{id}/formats`: one tool in every export format. */
export const ToolFormatsSchema = z.object({
  tool: z.string().describe('The tool id'),
  formats: z
    .record(
      z.string(),
      z.object({
        value: z.unknown().describe('The tool in that format (a string for `typescript`)'),
        warnings: z.array(z.string()).describe('What the format could not carry'),
      }),
    )
    .describe('By format: mcp, openai, openai-responses, anthropic, gemini, a2a, typescript'),
});

/** `GET /api/admin/tokens`: what `tools/list` costs an agent, flat against metatools. */
export const TokenCostsSchema = z.object({
  flat: z.number().describe('Tokens of every tool listed directly'),
  metatools: z.number().describe('Tokens of the metatools, one search and one describe'),
  tools: z.number().describe('Tools in the scope'),
  counter: z.string().describe('The tokenizer, or `estimate` (about 4 characters a token)'),
});

/** One toolset the caller may use, with its first members. */
export const ToolsetEntrySchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  toolCount: z.number().describe('Members in the current catalog'),
  endpoint: z.string().describe('The MCP endpoint serving only this toolset'),
  members: z.array(z.string()).describe('The first 100 member ids'),
});

/** `GET /api/admin/toolsets`. */
export const ToolsetListSchema = z.object({ toolsets: z.array(ToolsetEntrySchema) });

const Annotations = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** One skill as `describe_skill` gives it. */
export const SkillEntrySchema = z.object({
  name: z.string(),
  tool_id: z.string().describe('The tool that runs it, `skill:<name>`'),
  title: z.string().optional(),
  description: z.string(),
  tags: z.array(z.string()),
  input: z.record(z.string(), z.unknown()).describe('JSON Schema of the inputs'),
  steps: z.array(
    z.object({
      id: z.string(),
      tool: z.string(),
      description: z.string().optional(),
      args: z.unknown(),
      when: z.string().optional(),
      dependsOn: z.array(z.string()),
    }),
  ),
  output: z.unknown().optional(),
  annotations: Annotations,
  limits: z.object({ timeoutMs: z.number(), maxToolCalls: z.number() }),
});

/** `GET /api/admin/skills`. */
export const SkillListSchema = z.object({ skills: z.array(SkillEntrySchema) });

/** `POST /api/admin/skills/{name}/plan`: the body. */
export const SkillPlanRequestSchema = z.object({
  inputs: z.unknown().optional().describe("The skill's inputs (an object); absent: plan without them"),
});

/** `POST /api/admin/skills/{name}/plan`: the plan, as `plan_skill` gives it. */
export const SkillPlanSchema = z.object({
  skill: z.string(),
  tool_id: z.string(),
  valid: z.boolean().describe('No problem found (a run may still fail on results known only then)'),
  inputs: z.object({ given: z.boolean(), valid: z.boolean().optional(), issues: z.array(Issue).optional() }),
  steps: z.array(
    z.object({
      index: z.number(),
      id: z.string(),
      tool: z.string(),
      found: z.boolean().describe("Whether the tool exists in the caller's scope"),
      annotations: Annotations.optional(),
      runs: z.enum(['always', 'yes', 'no', 'depends']),
      when: z.string().optional(),
      dependsOn: z.array(z.string()),
      args: z.unknown().describe('The arguments as far as they are known now'),
      deferred: z.array(z.object({ path: z.string(), references: z.array(z.string()) })),
      check: z.enum(['valid', 'partial', 'invalid', 'unchecked']),
      issues: z.array(Issue).optional(),
    }),
  ),
  problems: z.array(
    z.object({
      code: z.enum(['tool_not_found', 'validation_input']),
      message: z.string(),
      step: z.string().optional(),
      index: z.number().optional(),
      issues: z.array(Issue).optional(),
    }),
  ),
  limits: z.object({ timeoutMs: z.number(), maxToolCalls: z.number() }),
});

/** One token set of an OAuth server (its status, never a token). */
export const TokenStatusSchema = z.object({
  identity: z.string().describe('The gateway identity it belongs to; `""` for the shared set'),
  tokens: z.boolean(),
  expiresAt: z.string().optional(),
  lastRefreshAt: z.string().optional(),
  lastRefreshError: z.string().optional(),
});

/** One remote source and where it stands (strings masked). */
export const SourceStatusSchema = z.object({
  id: z.string().describe('`mcp:<server>`, `openapi:<namespace>`, `a2a:<agent>`'),
  kind: z.string().optional().describe('`mcp`, `openapi` or `a2a`'),
  state: z.string().optional().describe('`connecting`, `connected` or `failed`'),
  tools: z.number().optional().describe('Its tools in the catalog'),
  transport: z.string().optional().describe('MCP servers: `stdio`, `streamable-http` or `sse`'),
  protocolVersion: z.string().optional().describe('MCP servers: the protocol revision they speak'),
  lastError: z.object({ code: z.string(), message: z.string() }).optional(),
  circuit: z.string().optional().describe("The circuit breaker's state, when circuit breaking is on"),
  connectedAt: z.string().optional().describe('MCP servers, while connected: since when (ISO 8601)'),
  transitions: z
    .array(z.object({ state: z.string(), at: z.string(), reason: z.string().optional() }))
    .optional()
    .describe('MCP servers: their last state changes, oldest first (at: ISO 8601; reason: why it failed)'),
  stderr: z.array(z.string()).optional().describe('Stdio servers: the last lines of stderr, masked'),
  oauth: z.array(TokenStatusSchema).optional().describe("An OAuth server's token sets"),
  sandbox: z
    .object({
      engine: z.string().describe('`bwrap`, or `none` when unconfined'),
      network: z.union([z.string(), z.array(z.string())]).describe('`open`, `none`, or the allowed hosts'),
      writable: z.array(z.string()),
      limits: z.record(z.string(), z.number()).optional(),
      reason: z.string().optional().describe('Why it is not sandboxed'),
    })
    .optional()
    .describe('Stdio servers: whether and how the process is sandboxed (docs/SANDBOX.md)'),
});

/** `GET /api/admin/sources`. */
export const SourceListSchema = z.object({ sources: z.array(SourceStatusSchema) });

/** `POST /api/admin/sources/{name}/reconnect`. */
export const SuccessSchema = z.object({ success: z.literal(true) });

/** `POST /api/admin/sources/{name}/login`: the URL to open, or no person was needed. */
export const LoginStartSchema = z.union([
  z.object({ loginUrl: z.string().describe('Open it to log in; the login ends at /oauth/callback') }),
  z.object({ authorized: z.literal(true) }),
]);

/** One call of the live log (`GET /api/admin/activity`, each `event: call`'s data). */
export const ActivityEventSchema = z.object({
  seq: z.number().describe('Monotonic; what Last-Event-ID resumes after'),
  time: z.string().describe('When the call ended (ISO 8601)'),
  tool: z.string(),
  caller: z.string(),
  toolset: z.string().optional(),
  surface: z.string().describe('`mcp`, `rest`, `a2a`, `code`, `chain`, `skill`, `cli` or `other`'),
  durationMs: z.number(),
  code: z.string().describe("`ok`, or the failure's error code"),
  args: z.unknown().describe('The arguments, redacted as the call log redacts them'),
});

/** One minute of the gateway's calls. */
export const ActivityBucketSchema = z.object({
  start: z.number().describe('Start of the minute, ms since the epoch'),
  calls: z.number(),
  errors: z.number(),
  p50Ms: z.number(),
  p95Ms: z.number(),
});

/** One tool's figures over the last hour. */
export const ToolActivitySchema = z.object({
  tool: z.string(),
  calls: z.number(),
  errors: z.number(),
  p50Ms: z.number(),
  p95Ms: z.number(),
});

/** `GET /api/admin/activity/stats`. */
export const ActivityStatsSchema = z.object({
  tools: z.array(ToolActivitySchema),
  series: z.array(ActivityBucketSchema).describe('Per minute over the last hour, of ?tool= or all'),
});

/** `GET /api/admin/config`. */
export const ConfigAnswerSchema = z.object({
  config: z.unknown().describe('The effective config, every secret masked'),
  // Beside the effective config so a reader can tell what was set from what was left as it comes.
  defaults: z.unknown().optional().describe('The config with nothing set (every default), masked alike'),
});

/** `POST /api/admin/config/validate`: the body. */
export const ConfigCheckRequestSchema = z.object({
  text: z.string({ error: 'must be the config as a string' }).describe('The config file'),
  format: z.enum(['yaml', 'json'], { error: 'must be "yaml" or "json"' }).optional(),
});

/** `POST /api/admin/config/validate`: what `aperture config validate` says. */
export const ConfigCheckSchema = z.union([
  z.object({ valid: z.literal(true), warnings: z.array(z.string()), notices: z.array(z.string()) }),
  z.object({
    valid: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), issues: z.unknown().optional() }),
  }),
]);

/** `GET /api/admin/code/api`: code_api for the caller's scope. */
export const CodeApiSchema = z.object({
  language: z.literal('typescript'),
  declarations: z.string().describe('The TypeScript declarations of `tools`'),
  tools: z.number(),
});

/** `POST /api/admin/code`: the body. */
export const CodeRequestSchema = z.object({
  code: z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }),
  language: z
    .enum(['javascript', 'typescript'], { error: 'must be "javascript" or "typescript"' })
    .optional(),
});

/** `POST /api/admin/code`: what the program did. */
export const CodeResultSchema = z.object({
  value: z.unknown().describe('The returned value after a JSON round trip'),
  logs: z.array(z.object({ level: z.enum(['log', 'info', 'warn', 'error']), message: z.string() })),
  toolCalls: z.array(
    z.object({ tool_id: z.string(), ms: z.number(), ok: z.boolean(), code: z.string().optional() }),
  ),
  durationMs: z.number(),
});

const TrustIssue = z.object({
  id: z.string(),
  sourceId: z.string(),
  reason: z.string(),
  quarantined: z.boolean(),
  changed: z.array(z.string()).describe('What changed since the trusted version'),
  findings: z.array(z.unknown()).describe('Suspicious text found in the tool'),
  fingerprint: z.string(),
});

/** `GET /api/admin/trust`. */
export const TrustStateSchema = z.object({
  mode: z.enum(['off', 'warn', 'quarantine']),
  quarantined: z.array(TrustIssue),
  warned: z.array(TrustIssue),
});

/** `POST /api/admin/trust/approve`: the body. */
export const TrustApproveRequestSchema = z.object({ ids: z.array(z.string().min(1)).min(1) });

/** `POST /api/admin/trust/approve`: what each id came to. */
export const TrustApprovalSchema = z.object({
  outcomes: z.record(z.string(), z.enum(['approved', 'nothing_pending', 'unknown'])),
});

/** `POST /api/admin/cache/invalidate`: which cached results to drop (neither: all of them). */
export const CacheInvalidateRequestSchema = z
  .object({
    tool: z.string().min(1).optional().describe('Drop the results of this tool id only'),
    namespace: z.string().min(1).optional().describe('Drop the results of the tools of this namespace'),
  })
  .refine((b) => b.tool === undefined || b.namespace === undefined, {
    error: 'give tool or namespace, not both',
  });

/** `POST /api/admin/cache/invalidate`: what was dropped. */
export const CacheInvalidationSchema = z.object({
  scope: z.enum(['tool', 'namespace', 'all']),
  dropped: z.number().int().optional().describe('Entries dropped (absent for all: the cache was cleared)'),
  shared: z.boolean().describe('True when the cache is shared (Redis): every gateway on it lost the entries'),
});

/** A call held for approval (`effect: approve`), waiting for an admin. */
export const PendingApprovalSchema = z.object({
  id: z.string().describe('Names the call in approve and deny'),
  tool: z.string().describe('The tool id'),
  caller: z.string().describe('Who called: `apikey:NAME`, `jwt:SUB`, `anonymous`…'),
  surface: z.string().describe('Where the call came from: mcp, rest, a2a, code, chain, skill, cli'),
  rule: z.string().describe('The policy rule that asked for approval'),
  reason: z.string().optional().describe("The rule's reason"),
  args: z.unknown().describe('The arguments, redacted as the call log redacts them'),
  requestedAt: z.string().describe('When the call was held (ISO 8601)'),
  expiresAt: z.string().describe('When it answers `approval_timeout` if nobody answers (ISO 8601)'),
});

/** `GET /api/admin/approvals`: the calls waiting on this gateway, oldest first. */
export const ApprovalListSchema = z.object({
  approvals: z.array(PendingApprovalSchema),
  via: z.enum(['auto', 'admin']).describe('`approvals.via`'),
  timeoutMs: z.number().describe('`approvals.timeoutMs`'),
});

/** `POST /api/admin/approvals/{id}/approve|deny`: what the answer came to. */
export const ApprovalAnswerSchema = z.object({
  id: z.string(),
  outcome: z.enum(['approved', 'denied']),
  tool: z.string(),
});

/** One line of the audit trail. */
export const AuditLineSchema = z.object({
  seq: z.number().describe('1 for the first line, then one more per line'),
  time: z.string().describe('When it was recorded (ISO 8601)'),
  prev: z.string().describe('The SHA-256 (hex) of the previous line'),
  kind: z.string().describe('`policy.deny`, `approval.request`, `approval.answer`, `admin.reload`, `call`…'),
  actor: z.string().describe('Who did it: `apikey:NAME`, `jwt:SUB`, `anonymous`, `gateway`…'),
  tool: z.string().optional(),
  surface: z.string().optional(),
  decision: z.string().optional(),
  rule: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** `GET /api/admin/audit`: the last lines of the audit trail. */
export const AuditListSchema = z.object({
  lines: z.array(AuditLineSchema).describe('Oldest first'),
  calls: z.boolean().describe('`audit.calls`: whether every call is recorded'),
  where: z.string().describe('Where the trail is kept: a file path, `redis` or `memory`'),
});

/** `POST /api/admin/reload`: what changed. */
export const ReloadAnswerSchema = z.object({
  success: z.literal(true),
  result: z
    .record(z.string(), z.unknown())
    .describe(
      'What changed: sections, servers added/removed/changed, what was applied and what needs a restart',
    ),
});

export type AdminSession = z.infer<typeof AdminSessionSchema>;
export type ToolFormats = z.infer<typeof ToolFormatsSchema>;
export type TokenCosts = z.infer<typeof TokenCostsSchema>;
export type ToolsetEntry = z.infer<typeof ToolsetEntrySchema>;
export type ToolsetList = z.infer<typeof ToolsetListSchema>;
export type SkillEntry = z.infer<typeof SkillEntrySchema>;
export type SkillList = z.infer<typeof SkillListSchema>;
export type SkillPlanAnswer = z.infer<typeof SkillPlanSchema>;
export type TokenStatus = z.infer<typeof TokenStatusSchema>;
export type SourceStatus = z.infer<typeof SourceStatusSchema>;
export type SourceList = z.infer<typeof SourceListSchema>;
export type LoginStart = z.infer<typeof LoginStartSchema>;
export type ActivityEvent = z.infer<typeof ActivityEventSchema>;
export type ActivityBucket = z.infer<typeof ActivityBucketSchema>;
export type ToolActivity = z.infer<typeof ToolActivitySchema>;
export type ActivityStats = z.infer<typeof ActivityStatsSchema>;
export type ConfigAnswer = z.infer<typeof ConfigAnswerSchema>;
export type ConfigCheck = z.infer<typeof ConfigCheckSchema>;
export type CodeApi = z.infer<typeof CodeApiSchema>;
export type CodeRequest = z.infer<typeof CodeRequestSchema>;
export type CodeResult = z.infer<typeof CodeResultSchema>;
export type TrustState = z.infer<typeof TrustStateSchema>;
export type TrustApproval = z.infer<typeof TrustApprovalSchema>;
export type CacheInvalidateRequest = z.infer<typeof CacheInvalidateRequestSchema>;
export type CacheInvalidation = z.infer<typeof CacheInvalidationSchema>;
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;
export type ApprovalList = z.infer<typeof ApprovalListSchema>;
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;
export type AuditLine = z.infer<typeof AuditLineSchema>;
export type AuditList = z.infer<typeof AuditListSchema>;

/** One variable a registry server needs from the user. */
const RegistryNeed = z.object({
  name: z.string(),
  secret: z
    .boolean()
    .describe('A secret: never accepted as a value here; the entry references it as secret:NAME'),
  required: z.boolean(),
  description: z.string().optional(),
});

/** `GET /api/admin/registry/servers`: servers of the configured registries matching `?search=`. */
export const RegistrySearchSchema = z.object({
  servers: z.array(
    z.object({
      registry: z.string().describe('The registry it was found in'),
      name: z.string(),
      version: z.string(),
      description: z.string(),
      runs: z.array(z.string()).describe('How it can run: `npm`, `pypi`, `remote(streamable-http)`, …'),
      needs: z.array(RegistryNeed),
    }),
  ),
});

/** `POST /api/admin/registry/plan` and `…/install`: which server, under which key, with which values. */
export const InstallRequestSchema = z.object({
  name: z.string().min(1).describe('The registry name'),
  version: z.string().min(1).optional().describe('Default: the latest'),
  as: z.string().min(1).optional().describe('The key under `servers` (default: the last part of the name)'),
  values: z
    .record(z.string(), z.string())
    .default({})
    .describe('Values of the non-secret variables; a secret given here is refused'),
  trust: z.enum(['auto', 'scan', 'manual']).default('scan'),
});

/** The entry an install writes (or would write), and what the user must still provide. */
export const InstallPlanSchema = z.object({
  key: z.string(),
  via: z.string().describe('How the server runs: `npm`, `remote`, `pypi`, `oci`'),
  transport: z.string().describe('`stdio`, or the remote transport'),
  entry: z
    .record(z.string(), z.unknown())
    .describe('The `servers.<key>` entry, secrets as `secret:NAME` references'),
  secrets: z
    .array(z.string())
    .describe('The secret names (`secret:NAME` references) the user must store before it starts'),
  needs: z.array(RegistryNeed),
  sandbox: z
    .string()
    .describe('The sandbox it would get: `sandbox.default` (on, off, required) for stdio, `none (remote)`'),
  origin: z.string(),
  written: z.boolean().describe('Whether the config file was written (and reloaded)'),
});
export type RegistrySearch = z.infer<typeof RegistrySearchSchema>;
/** An install request with its defaults applied (as the handler gets it). */
export type InstallRequest = z.output<typeof InstallRequestSchema>;
export type InstallPlan = z.infer<typeof InstallPlanSchema>;
