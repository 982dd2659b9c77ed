import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  formatSSEEvent,
  type Message,
  type Part,
  Role,
  TaskState,
} from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type RequestContext,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/catalog/catalog-entry.js';
import { GatewayError } from '../../src/foundation/model/gateway-error.js';
import { silentLogger } from '../../src/foundation/ports/logger.js';
import type { ExecutionContext } from '../../src/foundation/ports/tool-backend.js';
import { loadA2aAgentSource } from '../../src/sources/a2a/a2a-agent-source.js';
import { createA2aSurface } from '../../src/surfaces/a2a/a2a-surface.js';
import { gatewayFrom } from '../support/in-process-gateway.js';
import { surfaceContext } from '../support/surface-context.js';

// ---------- a test agent built on the SDK's server (no Express: its JSON-RPC handler on node:http)

function text(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function data(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

function agentMessage(parts: Part[], taskId = '', contextId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Dispatches on the `skill_id` hint the gateway puts in the message metadata. */
class TestExecutor implements AgentExecutor {
  readonly canceled: string[] = [];
  private readonly stops = new Map<string, () => void>();

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = ctx;
    const skill = String(userMessage.metadata?.skill_id ?? '');
    const words = userMessage.parts
      .flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))
      .join(' ');
    const input = userMessage.parts.find((p) => p.content?.$case === 'data')?.content?.value;
    if (skill === 'echo') {
      bus.publish(AgentEvent.message(agentMessage([text(`echo: ${words}`)], '', contextId)));
      return;
    }
    const status = (state: TaskState, parts?: Part[]) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: parts ? agentMessage(parts, taskId, contextId) : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_SUBMITTED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [userMessage],
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_WORKING);
    if (skill === 'fail') {
      status(TaskState.TASK_STATE_FAILED, [
        text('boom: the widget broke'),
        data({ error: { code: 'widget', message: 'broke' } }),
      ]);
      return;
    }
    if (skill === 'ask') {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, [text('Which widget?')]);
      return;
    }
    if (skill === 'slow') {
      const stopped = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 10_000);
        this.stops.set(taskId, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      this.stops.delete(taskId);
      if (stopped) return;
    }
    // upper (and weird skill/id): uppercase the words, echo the data, in two artifact chunks.
    const artifactId = randomUUID();
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId,
          name: 'out',
          description: '',
          parts: [text(words.toUpperCase())],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: false,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId,
          name: 'out',
          description: '',
          parts: [data({ upper: words.toUpperCase(), input: input ?? null })],
          metadata: undefined,
          extensions: [],
        },
        append: true,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.canceled.push(taskId);
    this.stops.get(taskId)?.();
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
  };
}

const SKILL_IDS = ['echo', 'upper', 'fail', 'ask', 'slow', 'weird skill/id'];

interface TestAgent {
  url: string;
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts an agent speaking A2A v1.0 JSON-RPC (or v0.3 with `legacy`), with a card at the well-known path. */
async function startAgent(
  executor: AgentExecutor,
  options: { streaming: boolean; legacy?: boolean },
): Promise<TestAgent> {
  let base = '';
  const card = (): AgentCard => ({
    name: 'Test agent',
    description: 'Echoes, uppercases, fails and dawdles on demand.',
    supportedInterfaces: [
      {
        url: `${base}/rpc`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: options.legacy ? '0.3' : A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming: options.streaming,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: SKILL_IDS.map((id) => ({
      id,
      name: `The ${id} skill`,
      description: `Does ${id}.`,
      tags: ['Test', id === 'upper' ? 'text' : 'misc'],
      examples: [`please ${id}`],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  });
  const legacyCard = () => ({
    name: 'Test agent',
    description: 'A v0.3 agent',
    url: `${base}/rpc`,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    version: '1.0.0',
    capabilities: { streaming: options.streaming },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: SKILL_IDS.map((id) => ({ id, name: id, description: `Does ${id}.`, tags: [] })),
  });
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const transport = options.legacy
    ? new LegacyJsonRpcTransportHandler(handler)
    : new JsonRpcTransportHandler(handler);
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer(async (req, res) => {
    headers.push(req.headers);
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(options.legacy ? legacyCard() : card()));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/rpc') {
      res.writeHead(404).end();
      return;
    }
    const context = new ServerCallContext({ requestedVersion: options.legacy ? '0.3' : '1.0' });
    const out = await transport.handle(await readBody(req), context);
    if (typeof out === 'object' && out !== null && Symbol.asyncIterator in out) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for await (const event of out) res.write(formatSSEEvent(event));
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    }
  });
  base = await listen(server);
  return { url: base, headers, close: () => closeServer(server) };
}

// ---------- helpers for calling the loaded tools

function context(signal: AbortSignal = new AbortController().signal): ExecutionContext {
  return {
    signal,
    callId: randomUUID(),
    caller: { identity: 'test' },
    progress: () => {},
    log: silentLogger,
  };
}

function entry(entries: CatalogEntry[], id: string): CatalogEntry {
  const found = entries.find((e) => e.tool.id === id);
  if (!found) throw new Error(`no tool ${id} in ${entries.map((e) => e.tool.id).join(', ')}`);
  return found;
}

async function run(entries: CatalogEntry[], id: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const e = entry(entries, id);
  return (await e.backend.execute(e.tool, args, context(signal))) as {
    content: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
  };
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

// ---------- the tests

const executor = new TestExecutor();
const agents: Record<'streaming' | 'polling', TestAgent> = {} as Record<'streaming' | 'polling', TestAgent>;

beforeAll(async () => {
  agents.streaming = await startAgent(executor, { streaming: true });
  agents.polling = await startAgent(executor, { streaming: false });
});

afterAll(async () => {
  await Promise.all(Object.values(agents).map((a) => a.close()));
});

describe.each(['streaming', 'polling'] as const)('A2A agent as tools (%s agent)', (mode) => {
  let entries: CatalogEntry[];

  beforeAll(async () => {
    entries = await loadA2aAgentSource(
      'helper',
      {
        url: agents[mode].url,
        headers: { 'X-Test-Token': 'sesame' },
        timeoutMs: 400,
        allowPrivateNetwork: true,
      },
      { log: silentLogger },
    );
  });

  it('makes each skill a tool with a { message, data? } input', () => {
    expect(entries.map((e) => e.tool.id)).toEqual([
      'helper:echo',
      'helper:upper',
      'helper:fail',
      'helper:ask',
      'helper:slow',
      'helper:weird_skill_id',
    ]);
    const upper = entry(entries, 'helper:upper').tool;
    expect(upper).toMatchObject({
      title: 'The upper skill',
      description: 'Does upper.',
      inputSchema: { required: ['message'], additionalProperties: false },
      origin: { kind: 'a2a', originalName: 'upper', sourceId: 'agent:helper' },
    });
    expect(upper.tags).toEqual(['test', 'text', 'a2a', 'agent']);
    expect(upper.examples[0]).toEqual({ title: 'please upper', args: { message: 'please upper' } });
    expect(entry(entries, 'helper:weird_skill_id').tool.origin.originalName).toBe('weird skill/id');
  });

  it('returns a direct message reply as text', async () => {
    const result = await run(entries, 'helper:echo', { message: 'hi there' });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi there' }]);
    expect(result.structuredContent).toBeUndefined();
  });

  it("returns a task's artifacts: data parts as the structured result, text parts as text", async () => {
    const result = await run(entries, 'helper:upper', { message: 'shout this', data: { n: 1 } });
    expect(result.structuredContent).toEqual({ upper: 'SHOUT THIS', input: { n: 1 } });
    expect(result.content).toEqual([{ type: 'text', text: 'SHOUT THIS' }]);
    await expect(run(entries, 'helper:weird_skill_id', { message: 'x' })).resolves.toBeDefined();
  });

  it('sends the configured headers with every request', () => {
    const seen = agents[mode].headers.filter((h) => h['x-test-token'] === 'sesame');
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  it('fails with execution_failed carrying the remote message when the remote task fails', async () => {
    const error = await failure(run(entries, 'helper:fail', { message: 'go' }));
    expect(error.code).toBe('execution_failed');
    expect(error.message).toContain('boom: the widget broke');
    expect(error.details).toMatchObject({
      remote_state: 'TASK_STATE_FAILED',
      remote_error: { code: 'widget' },
    });
  });

  it('fails when the agent asks for input, and cancels the open remote task', async () => {
    const before = executor.canceled.length;
    const error = await failure(run(entries, 'helper:ask', { message: 'go' }));
    expect(error.code).toBe('execution_failed');
    expect(error.message).toContain('Which widget?');
    for (let i = 0; i < 100 && executor.canceled.length === before; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(executor.canceled.length).toBe(before + 1);
  });

  it('times out a slow task and cancels it on the agent', async () => {
    const before = executor.canceled.length;
    const started = Date.now();
    const error = await failure(run(entries, 'helper:slow', { message: 'take your time' }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('400 ms');
    expect(Date.now() - started).toBeLessThan(3000);
    for (let i = 0; i < 100 && executor.canceled.length === before; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(executor.canceled.length).toBe(before + 1);
  });

  it('honours the call signal: cancelled, and the remote task is canceled', async () => {
    const before = executor.canceled.length;
    const controller = new AbortController();
    const pending = run(entries, 'helper:slow', { message: 'wait' }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const error = await failure(pending);
    expect(error.code).toBe('cancelled');
    for (let i = 0; i < 100 && executor.canceled.length === before; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(executor.canceled.length).toBe(before + 1);
  });
});

describe('A2A agents: v0.3 peers and broken peers', () => {
  it('talks to a v0.3 agent through the compat layer', async () => {
    const legacy = await startAgent(new TestExecutor(), { streaming: true, legacy: true });
    try {
      const entries = await loadA2aAgentSource(
        'old',
        { url: legacy.url, allowPrivateNetwork: true },
        { log: silentLogger },
      );
      expect(entries.map((e) => e.tool.id)).toContain('old:upper');
      const result = await run(entries, 'old:upper', { message: 'legacy' });
      expect(result.structuredContent).toMatchObject({ upper: 'LEGACY' });
      const error = await failure(run(entries, 'old:fail', { message: 'go' }));
      expect(error.code).toBe('execution_failed');
    } finally {
      await legacy.close();
    }
  });

  it('reports an agent that is down as backend_unavailable at load', async () => {
    const server = http.createServer();
    const url = await listen(server);
    await closeServer(server);
    const error = await failure(
      loadA2aAgentSource('down', { url, allowPrivateNetwork: true }, { log: silentLogger }),
    );
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toMatch(/down.*unreachable.*ECONNREFUSED/);
  });

  it('reports an endpoint answering garbage: at load (the card) and at run time (the RPC)', async () => {
    let base = '';
    const server = http.createServer((req, res) => {
      if (req.url === '/good/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'liar',
            description: 'Serves a card, then garbage',
            supportedInterfaces: [
              { url: `${base}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
            ],
            version: '1',
            capabilities: { streaming: false },
            defaultInputModes: [],
            defaultOutputModes: [],
            skills: [{ id: 'lie', name: 'lie', description: 'Lies.', tags: [] }],
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('not json');
    });
    base = await listen(server);
    try {
      const atLoad = await failure(
        loadA2aAgentSource('garbage', { url: base, allowPrivateNetwork: true }, { log: silentLogger }),
      );
      expect(atLoad.code).toBe('backend_unavailable');
      expect(atLoad.message).toContain('not JSON');

      const entries = await loadA2aAgentSource(
        'liar',
        { url: `${base}/good`, allowPrivateNetwork: true },
        { log: silentLogger },
      );
      const atRun = await failure(run(entries, 'liar:lie', { message: 'hello' }));
      expect(atRun.code).toBe('execution_failed');
      expect(atRun.message).toMatch(/liar.*not JSON/);
    } finally {
      await closeServer(server);
    }
  });

  it('reports an agent that went away after loading as backend_unavailable', async () => {
    const agent = await startAgent(new TestExecutor(), { streaming: false });
    const entries = await loadA2aAgentSource(
      'gone',
      { url: agent.url, allowPrivateNetwork: true },
      { log: silentLogger },
    );
    await agent.close();
    const error = await failure(run(entries, 'gone:upper', { message: 'anyone?' }));
    expect(error.code).toBe('backend_unavailable');
  });

  it("loads an Aperture gateway's own A2A surface as an agent (both halves interoperate)", async () => {
    const gateway = await gatewayFrom();
    let base = '';
    const surface = createA2aSurface(
      surfaceContext(gateway.scope, {
        resolveScope: gateway.toolsets.resolve,
        baseUrl: () => base,
        info: { name: 'peer', version: '1' },
      }),
    );
    const app = new Hono();
    app.route('/', surface.app);
    const server = http.createServer(getRequestListener(app.fetch));
    base = await listen(server);
    try {
      const entries = await loadA2aAgentSource(
        'peer',
        { url: base, allowPrivateNetwork: true },
        { log: silentLogger },
      );
      expect(entries.map((e) => e.tool.id)).toContain('peer:time_now');
      const result = await run(entries, 'peer:time_now', {
        message: 'run it',
        data: { tool_id: 'time:now', args: { timezone: 'UTC' } },
      });
      expect(result.structuredContent).toMatchObject({ timezone: 'UTC' });
      const found = await run(entries, 'peer:time_now', { message: 'encode a plantuml diagram' });
      expect(JSON.stringify(found.structuredContent)).toContain('plantuml:encode');
      const error = await failure(
        run(entries, 'peer:time_now', { message: 'x', data: { tool_id: 'no:such' } }),
      );
      expect(error.code).toBe('execution_failed');
      expect(error.details).toMatchObject({
        remote_state: 'TASK_STATE_REJECTED',
        remote_error: { code: 'tool_not_found' },
      });
    } finally {
      await surface.close();
      await closeServer(server);
      await gateway.close();
    }
  });

  it('refuses unusable options with config_invalid', async () => {
    expect(
      (await failure(loadA2aAgentSource('bad name', { url: 'http://x' }, { log: silentLogger }))).code,
    ).toBe('config_invalid');
    expect((await failure(loadA2aAgentSource('a', { url: 'nope' }, { log: silentLogger }))).code).toBe(
      'config_invalid',
    );
  });
});
