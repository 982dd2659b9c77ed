/**
 * Deterministic synthetic tool catalogs and queries for the search benchmark. A seeded PRNG draws
 * from vocabularies of services, objects, verbs, qualifiers and parameters, so the same seed gives
 * the same tools on every machine. Tools look like the ones real MCP servers publish: snake_case
 * names (`create_issue`, `list_invoice_items`), a sentence or two of description, 1–7 parameters
 * with descriptions, some enums and nested objects, tags and a category.
 */
import type { Tool } from '../../src/foundation/model/tool.js';

/** mulberry32: a small, fast, well-distributed 32-bit PRNG. Returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

function pickSome<T>(rand: () => number, list: readonly T[], min: number, max: number): T[] {
  const count = min + Math.floor(rand() * (max - min + 1));
  const chosen = new Set<T>();
  while (chosen.size < Math.min(count, list.length)) chosen.add(pick(rand, list));
  return [...chosen];
}

/** Services, each with a category and the kinds of objects it manages. */
export const SERVICES: [service: string, category: string, objects: string[]][] = [
  [
    'github',
    'dev',
    [
      'issue',
      'pull_request',
      'repository',
      'branch',
      'commit',
      'release',
      'workflow',
      'comment',
      'label',
      'gist',
    ],
  ],
  ['gitlab', 'dev', ['merge_request', 'pipeline', 'project', 'issue', 'branch', 'runner', 'snippet', 'tag']],
  ['jira', 'project', ['ticket', 'sprint', 'epic', 'board', 'comment', 'worklog', 'version', 'component']],
  ['linear', 'project', ['issue', 'cycle', 'project', 'team', 'label', 'comment', 'roadmap']],
  ['slack', 'chat', ['message', 'channel', 'user', 'reaction', 'thread', 'reminder', 'file', 'bookmark']],
  ['discord', 'chat', ['message', 'guild', 'channel', 'role', 'member', 'webhook', 'invite']],
  ['gmail', 'mail', ['email', 'draft', 'label', 'thread', 'attachment', 'filter']],
  ['outlook', 'mail', ['email', 'calendar_event', 'contact', 'folder', 'meeting', 'rule']],
  [
    'stripe',
    'payments',
    [
      'invoice',
      'customer',
      'charge',
      'refund',
      'subscription',
      'payment_intent',
      'coupon',
      'payout',
      'price',
    ],
  ],
  ['paypal', 'payments', ['payment', 'order', 'dispute', 'payout', 'invoice', 'transaction']],
  [
    'shopify',
    'commerce',
    ['product', 'order', 'customer', 'inventory_item', 'collection', 'discount', 'fulfillment'],
  ],
  ['salesforce', 'crm', ['lead', 'opportunity', 'account', 'contact', 'case', 'campaign', 'report']],
  ['hubspot', 'crm', ['contact', 'deal', 'company', 'ticket', 'note', 'pipeline', 'form']],
  ['zendesk', 'support', ['ticket', 'user', 'organization', 'macro', 'article', 'satisfaction_rating']],
  ['aws_s3', 'cloud', ['bucket', 'object', 'lifecycle_rule', 'bucket_policy', 'multipart_upload']],
  ['aws_ec2', 'cloud', ['instance', 'volume', 'snapshot', 'security_group', 'key_pair', 'image']],
  ['aws_lambda', 'cloud', ['function', 'alias', 'layer', 'event_source_mapping', 'invocation']],
  ['gcp_storage', 'cloud', ['bucket', 'blob', 'notification', 'hmac_key']],
  ['azure_vm', 'cloud', ['virtual_machine', 'disk', 'network_interface', 'availability_set']],
  [
    'kubernetes',
    'infra',
    ['pod', 'deployment', 'service', 'namespace', 'config_map', 'secret', 'node', 'ingress', 'job'],
  ],
  ['docker', 'infra', ['container', 'image', 'volume', 'network', 'registry_tag']],
  ['terraform', 'infra', ['workspace', 'plan', 'state', 'module', 'variable', 'run']],
  ['datadog', 'observability', ['monitor', 'dashboard', 'metric', 'log_query', 'incident', 'slo']],
  ['pagerduty', 'observability', ['incident', 'schedule', 'escalation_policy', 'service', 'on_call']],
  ['sentry', 'observability', ['issue', 'event', 'release', 'project', 'alert_rule']],
  ['postgres', 'database', ['table', 'row', 'index', 'query', 'schema', 'role', 'backup']],
  ['mysql', 'database', ['table', 'row', 'query', 'user', 'database', 'replica']],
  ['mongodb', 'database', ['collection', 'document', 'index', 'aggregation', 'cluster']],
  ['redis', 'database', ['key', 'hash', 'stream', 'list', 'set', 'channel']],
  ['elasticsearch', 'search', ['index', 'document', 'alias', 'mapping', 'snapshot', 'query']],
  ['notion', 'docs', ['page', 'database', 'block', 'comment', 'user']],
  ['confluence', 'docs', ['page', 'space', 'attachment', 'comment', 'template']],
  ['google_drive', 'files', ['file', 'folder', 'permission', 'revision', 'shared_drive']],
  ['dropbox', 'files', ['file', 'folder', 'shared_link', 'paper_doc']],
  ['google_calendar', 'calendar', ['event', 'calendar', 'attendee', 'reminder', 'free_busy']],
  ['zoom', 'meetings', ['meeting', 'webinar', 'recording', 'participant', 'user']],
  ['twilio', 'messaging', ['sms', 'call', 'phone_number', 'conversation', 'verification']],
  ['sendgrid', 'mail', ['email', 'template', 'contact_list', 'campaign', 'suppression']],
  ['openweather', 'data', ['forecast', 'current_weather', 'air_quality', 'alert']],
  ['google_maps', 'data', ['place', 'route', 'geocode', 'distance_matrix', 'elevation']],
  ['spotify', 'media', ['track', 'playlist', 'album', 'artist', 'playback']],
  ['youtube', 'media', ['video', 'playlist', 'channel', 'caption', 'comment']],
  ['figma', 'design', ['file', 'component', 'comment', 'frame', 'style']],
  ['airtable', 'data', ['record', 'table', 'base', 'view', 'field']],
  ['quickbooks', 'accounting', ['invoice', 'bill', 'vendor', 'expense', 'journal_entry', 'account']],
  ['xero', 'accounting', ['invoice', 'contact', 'bank_transaction', 'payment', 'credit_note']],
  ['workday', 'hr', ['worker', 'time_off', 'position', 'payroll_result', 'job_requisition']],
  ['greenhouse', 'hr', ['candidate', 'application', 'job', 'interview', 'offer', 'scorecard']],
  ['okta', 'identity', ['user', 'group', 'application', 'factor', 'policy', 'session']],
  ['auth0', 'identity', ['user', 'role', 'connection', 'client', 'log_event']],
  ['cloudflare', 'network', ['dns_record', 'zone', 'firewall_rule', 'worker', 'cache_purge', 'certificate']],
  ['vercel', 'deploy', ['deployment', 'project', 'domain', 'environment_variable', 'log']],
  ['netlify', 'deploy', ['site', 'deploy', 'form_submission', 'build_hook']],
  ['snowflake', 'warehouse', ['warehouse', 'query', 'table', 'stage', 'task']],
  ['bigquery', 'warehouse', ['dataset', 'table', 'job', 'query', 'routine']],
  ['openai', 'ai', ['completion', 'embedding', 'file', 'fine_tune', 'vector_store', 'assistant']],
  ['huggingface', 'ai', ['model', 'dataset', 'space', 'inference', 'discussion']],
  ['fs', 'local', ['file', 'directory', 'symlink', 'archive', 'permission']],
  ['git', 'local', ['commit', 'branch', 'diff', 'stash', 'remote', 'tag', 'blame']],
  ['browser', 'web', ['page', 'screenshot', 'cookie', 'tab', 'form', 'pdf']],
];

/** Verbs, with the phrase used in descriptions and the synonyms a user might type instead. */
export const VERBS: [verb: string, phrase: string, synonyms: string[]][] = [
  ['create', 'Create a new', ['make', 'add', 'new', 'open']],
  ['get', 'Get one', ['fetch', 'read', 'show', 'retrieve']],
  ['list', 'List the', ['show all', 'enumerate', 'browse']],
  ['update', 'Update an existing', ['edit', 'modify', 'change']],
  ['delete', 'Permanently delete a', ['remove', 'destroy', 'erase']],
  ['search', 'Search for', ['find', 'look up', 'query']],
  ['archive', 'Archive a', ['hide', 'shelve']],
  ['export', 'Export', ['download', 'dump', 'save']],
  ['import', 'Import', ['upload', 'load', 'ingest']],
  ['copy', 'Copy a', ['duplicate', 'clone']],
  ['move', 'Move a', ['relocate', 'transfer']],
  ['assign', 'Assign a', ['give', 'allocate']],
  ['tag', 'Tag a', ['label', 'categorize']],
  ['sync', 'Synchronise', ['mirror', 'refresh']],
  ['count', 'Count the', ['how many', 'tally']],
  ['validate', 'Validate a', ['check', 'verify', 'lint']],
  ['restore', 'Restore a deleted', ['undelete', 'recover']],
  ['schedule', 'Schedule a', ['plan', 'book', 'queue']],
  ['cancel', 'Cancel a', ['abort', 'stop', 'revoke']],
  ['share', 'Share a', ['send', 'publish', 'invite to']],
];

const QUALIFIERS: [suffix: string, text: string][] = [
  ['', ''],
  ['_batch', 'several at once, in one request'],
  ['_by_id', 'by its identifier'],
  ['_by_name', 'by its display name'],
  ['_history', 'with its change history'],
  ['_metadata', 'returning only the metadata'],
  ['_async', 'in the background, returning a job id'],
  ['_v2', 'using the v2 API'],
];

const DESCRIPTION_TAILS = [
  'Requires write access to the {service} workspace.',
  'Results are paginated; pass the cursor from the previous page.',
  'Returns the {object} as JSON, including timestamps and owner.',
  'Rate limited to 100 requests per minute per token.',
  'Use it when the user mentions a {object} in {service}.',
  'Fails with not_found when the {object} does not exist.',
  'Idempotent: calling it twice has the same effect as once.',
  'The change is visible to every member of the organisation.',
  'Times are UTC, in ISO 8601.',
  'Large results are truncated to the first 1,000 entries.',
];

/** Parameter pool: name, JSON Schema (with a description), and how often it shows up. */
const PARAMS: [name: string, schema: Record<string, unknown>][] = [
  ['id', { type: 'string', description: 'Identifier of the {object}.' }],
  ['name', { type: 'string', description: 'Display name of the {object}.' }],
  ['title', { type: 'string', description: 'Short title shown in lists.' }],
  ['description', { type: 'string', description: 'Longer free-text description, Markdown allowed.' }],
  ['query', { type: 'string', description: 'Free-text search expression.' }],
  [
    'limit',
    { type: 'integer', minimum: 1, maximum: 100, description: 'Maximum number of results to return.' },
  ],
  ['cursor', { type: 'string', description: 'Pagination cursor from a previous response.' }],
  ['owner', { type: 'string', description: 'User or team that owns the {object}.' }],
  ['assignee', { type: 'string', description: 'Email of the person to assign.' }],
  [
    'status',
    {
      type: 'string',
      enum: ['open', 'closed', 'pending', 'archived'],
      description: 'Lifecycle state filter.',
    },
  ],
  [
    'priority',
    { type: 'string', enum: ['low', 'medium', 'high', 'urgent'], description: 'How urgent it is.' },
  ],
  [
    'region',
    { type: 'string', enum: ['us-east-1', 'eu-west-1', 'ap-south-1'], description: 'Data centre region.' },
  ],
  [
    'createdAfter',
    { type: 'string', format: 'date-time', description: 'Only items created after this instant.' },
  ],
  [
    'createdBefore',
    { type: 'string', format: 'date-time', description: 'Only items created before this instant.' },
  ],
  ['dryRun', { type: 'boolean', description: 'Validate the request without applying it.' }],
  ['tags', { type: 'array', items: { type: 'string' }, description: 'Labels to attach.' }],
  ['amount', { type: 'number', minimum: 0, description: 'Amount in the smallest currency unit.' }],
  [
    'currency',
    { type: 'string', enum: ['usd', 'eur', 'gbp', 'jpy'], description: 'ISO 4217 currency code.' },
  ],
  ['path', { type: 'string', description: 'Path of the file or folder, relative to the root.' }],
  ['content', { type: 'string', description: 'Body text of the {object}.' }],
  [
    'recipients',
    { type: 'array', items: { type: 'string', format: 'email' }, description: 'Who receives it.' },
  ],
  ['timeoutSeconds', { type: 'integer', minimum: 1, description: 'Give up after this many seconds.' }],
  [
    'options',
    {
      type: 'object',
      description: 'Advanced options.',
      properties: {
        includeArchived: { type: 'boolean', description: 'Also return archived items.' },
        sortBy: {
          type: 'string',
          enum: ['created', 'updated', 'name'],
          description: 'Sort order of the results.',
        },
        fields: { type: 'array', items: { type: 'string' }, description: 'Only return these fields.' },
      },
    },
  ],
  [
    'filter',
    {
      type: 'object',
      description: 'Structured filter.',
      properties: {
        field: { type: 'string', description: 'Field to compare.' },
        operator: {
          type: 'string',
          enum: ['eq', 'ne', 'gt', 'lt', 'contains'],
          description: 'Comparison operator.',
        },
        value: { type: 'string', description: 'Value to compare with.' },
      },
      required: ['field', 'operator'],
    },
  ],
];

const TAGS = [
  'read-only',
  'write',
  'admin',
  'beta',
  'bulk',
  'sensitive',
  'fast',
  'slow',
  'billing',
  'ops',
  'team',
  'public',
];

const words = (snake: string) => snake.replaceAll('_', ' ');
const fill = (text: string, service: string, object: string) =>
  text.replaceAll('{service}', words(service)).replaceAll('{object}', words(object));

function fillSchema(schema: unknown, service: string, object: string): Record<string, unknown> {
  return JSON.parse(fill(JSON.stringify(schema), service, object));
}

/**
 * `count` distinct tools as the canonical `Tool` shape, in a fixed pseudo-random order. Beyond the
 * 20 verbs × ~6 objects × 60 services of plain combinations, qualifiers and numbered service
 * instances (`github_2`, as several accounts of one service would be) keep ids unique.
 */
export function syntheticTools(count: number, seed = 42): Tool[] {
  const rand = prng(seed);
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let attempts = 0;
  while (tools.length < count) {
    if (++attempts > count * 50) throw new Error('synthetic catalog: vocabulary exhausted');
    const [service, category, objects] = pick(rand, SERVICES);
    const object = pick(rand, objects);
    const [verb, verbPhrase] = pick(rand, VERBS);
    const [qualifier, qualifierText] = rand() < 0.6 ? QUALIFIERS[0]! : pick(rand, QUALIFIERS);
    // Past the plain combinations, the same service shows up as several instances.
    const instance = tools.length < count * 0.4 || rand() < 0.3 ? '' : `_${2 + Math.floor(rand() * 9)}`;
    const namespace = `${service}${instance}`;
    const objectName = verb === 'list' || verb === 'count' || verb === 'search' ? pluralize(object) : object;
    const name = `${verb}_${objectName}${qualifier}`;
    const id = `${namespace}:${name}`;
    if (seen.has(id)) continue;
    seen.add(id);

    const tails = pickSome(rand, DESCRIPTION_TAILS, 1, 3).map((t) => fill(t, service, object));
    const description = [
      `${verbPhrase} ${words(object)}${verb === 'list' || verb === 'count' ? 's' : ''} in ${words(service)}` +
        `${qualifierText ? `, ${qualifierText}` : ''}.`,
      ...tails,
    ].join(' ');
    const properties: Record<string, Record<string, unknown>> = {};
    const required: string[] = [];
    for (const [paramName, schema] of pickSome(rand, PARAMS, 1, 7)) {
      properties[paramName] = fillSchema(schema, service, object);
      if (rand() < 0.3) required.push(paramName);
    }
    const readOnly = ['get', 'list', 'search', 'count', 'export', 'validate'].includes(verb);
    tools.push({
      id,
      namespace,
      name,
      // One draw either way, so the catalog stays the same for a seed.
      ...(rand() < 0.5 ? { title: `${capitalize(verb)} ${words(objectName)}` } : {}),
      description,
      inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
      annotations: { readOnlyHint: readOnly, destructiveHint: verb === 'delete' },
      tags: pickSome(rand, TAGS, 0, 3),
      metadata: { category, cost: Math.round(rand() * 10) },
      examples: [],
      origin: { sourceId: 'synthetic', kind: 'local', originalName: name },
    });
  }
  return tools;
}

/**
 * `count` queries of the kinds agents send: natural-language requests using synonyms rather than
 * the tools' own words, keyword pairs, exact ids and names, camelCase names, single words, words
 * that match nothing. Drawn from the same vocabularies, with their own seed.
 */
export function syntheticQueries(count: number, seed = 7): string[] {
  const rand = prng(seed);
  const queries: string[] = [];
  const kinds = [
    () => {
      const [service, , objects] = pick(rand, SERVICES);
      const [, , synonyms] = pick(rand, VERBS);
      return `${pick(rand, synonyms)} a ${words(pick(rand, objects))} in ${words(service)}`;
    },
    () => {
      const [, , objects] = pick(rand, SERVICES);
      const [verb] = pick(rand, VERBS);
      return `${verb} ${words(pick(rand, objects))}`;
    },
    () => {
      const [service, , objects] = pick(rand, SERVICES);
      const [verb] = pick(rand, VERBS);
      return `${service}:${verb}_${pick(rand, objects)}`;
    },
    () => {
      const [, , objects] = pick(rand, SERVICES);
      const [verb] = pick(rand, VERBS);
      return `${verb}${pick(rand, objects).split('_').map(capitalize).join('')}`;
    },
    () => words(pick(rand, pick(rand, SERVICES)[2])),
    () => {
      const [service, category] = pick(rand, SERVICES);
      return `${category} tools for ${words(service)} with ${pick(rand, ['pagination', 'priority', 'currency', 'region', 'dry run'])}`;
    },
    () =>
      `please ${pick(rand, ['find', 'show me', 'get'])} every ${words(pick(rand, pick(rand, SERVICES)[2]))} ` +
      `created after last week that is ${pick(rand, ['open', 'urgent', 'archived', 'pending'])}`,
    () => pick(rand, ['quantum teleport', 'xylophone', 'zzz', 'bake sourdough', 'ok']),
  ];
  const weights = [5, 4, 2, 2, 2, 2, 2, 1];
  const total = weights.reduce((a, b) => a + b, 0);
  while (queries.length < count) {
    let r = rand() * total;
    let k = 0;
    while (r >= weights[k]!) r -= weights[k++]!;
    queries.push(kinds[k]!());
  }
  return queries;
}

function pluralize(word: string): string {
  if (/(s|x|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
