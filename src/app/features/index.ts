import { activityFeed } from './activity-feed.js';
import { approvals } from './approvals.js';
import { audit } from './audit.js';
import { auth } from './auth.js';
import { callPolicies } from './call-policies.js';
import { catalog } from './catalog.js';
import { codeMode } from './code-mode.js';
import { adminConsole } from './console.js';
import { exposure } from './exposure.js';
import type { FeatureFactory } from './feature.js';
import { http } from './http.js';
import { mcpSessions } from './mcp-sessions.js';
import { oauth } from './oauth.js';
import { observability } from './observability.js';
import { policies } from './policies.js';
import { search } from './search.js';
import { sharedState } from './shared-state.js';
import { skills } from './skills.js';
import { sources } from './sources.js';
import { stateStore } from './state-store.js';
import { toolScopes } from './tool-scopes.js';
import { trust } from './trust.js';

/**
 * The gateway's features, in order: made and started top to bottom, closed bottom to top. A
 * feature needs at its factory only parts provided above it; one that fills a middleware slot is
 * listed above `toolScopes` (which builds the pipeline). The resulting start order:
 * shared state is opened before anything reads it; exposure's tokenizer loads before the sources
 * publish; local sources publish, remote ones start, trust watches them, skills register, and the
 * search index is built last. The resulting close order: HTTP first (nothing new arrives), the
 * sources' connections, search (learned queries written) before the state store, the shared state
 * after it, observability last (every span flushed).
 */
export const FEATURES: readonly FeatureFactory[] = [
  observability, // first made, last closed: reports lazily on what follows
  sharedState, // Redis (`state.driver: redis`): before anything reads state
  stateStore, // the state store and the embedder
  audit, // the audit trail: before everything that records into it
  approvals, // the approval desk (policy rules' `effect: approve`)
  callPolicies, // rate limits, cache, retries, circuit breakers
  oauth, // tokens, per-user calls, /oauth/callback
  exposure, // exposure auto's tokenizer
  sources, // built-in tools, tool modules, MCP servers, OpenAPI, A2A agents
  trust, // trust on first use: the catalog's gate
  catalog, // core: the catalog, overrides, flat names
  activityFeed, // the console's live log
  codeMode, // execute_code's sandbox
  skills, // skill:<name> tools
  search, // search, its feedback, the index
  auth, // credentials of the HTTP surfaces
  policies, // policy rules: the authorize stage and what each caller sees
  toolScopes, // core: the run pipeline (every slot above), the scopes, toolsets
  mcpSessions, // core: MCP sessions
  adminConsole, // the web console and /api/admin
  http, // core: HTTP serving, closed first
];
