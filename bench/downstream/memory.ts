/** Part 3 of the downstream benchmark: memory and start-up with many downstream servers. */
import { ROOT, rssMiB, spawnTracked, stopChild, waitForStderr } from '../lib/common.js';
import { connectHttp } from '../lib/mcp-clients.js';
import {
  connectStdioProcess,
  gatewayHttpArgs,
  MANY_TOOLS_SERVER,
  remember,
  sleep,
  untilReady,
} from './support.js';

// ---------------------------------------------------------------------------------------------
// Part 3: memory with many downstream servers

export async function memoryRun(config: any, servers: any) {
  const start = performance.now();
  const child = spawnTracked(process.execPath, gatewayHttpArgs(config), { cwd: ROOT }, 'SIGTERM');
  child.stdout?.resume();
  const stop = () => stopChild(child, 10000);
  try {
    const { match, at: listening } = await waitForStderr(child, /listening on (http:\/\/\S+)/, 60000);
    const base = match[1]!.replace(/\/mcp$/, '');
    const { at: ready, readiness } = await untilReady(base, (r: any) => {
      const sources = r.sources ?? [];
      return sources.length === servers && sources.every((s: any) => s.state === 'connected' && s.tools > 0);
    });
    const tree = remember(child.pid, `memory-${servers}`);
    const children = () => tree.reduce((sum: any, pid: number | undefined) => sum + (rssMiB(pid) || 0), 0);
    const atReady = { gateway: rssMiB(child.pid), children: children() };
    await sleep(2000);
    const settled = { gateway: rssMiB(child.pid), children: children() };
    // One search over the whole catalog (the index is built on first use), through a client.
    const connection = await connectHttp('memory', { url: match[1]!, pid: child.pid });
    let afterSearch: any;
    let searchMs: any;
    let warmSearchMs: any;
    try {
      const t0 = performance.now();
      const result = await connection.client.callTool({
        name: 'search_tools',
        arguments: { query: 'export invoices to a file' },
      });
      searchMs = performance.now() - t0;
      if (result.isError) throw new Error(`search_tools failed: ${JSON.stringify(result).slice(0, 500)}`);
      const t1 = performance.now();
      await connection.client.callTool({ name: 'search_tools', arguments: { query: 'archive old records' } });
      warmSearchMs = performance.now() - t1;
      await sleep(1000);
      afterSearch = { gateway: rssMiB(child.pid), children: children() };
    } finally {
      await connection.close();
    }
    const sources = readiness.sources ?? [];
    return {
      servers,
      connected: sources.filter((s: any) => s.state === 'connected').length,
      sourceTools: sources.reduce((sum: any, s: any) => sum + s.tools, 0),
      catalogTools: readiness.tools,
      toolsPerSource: [...new Set(sources.map((s: any) => s.tools))],
      listeningMs: listening - start,
      readyMs: ready - start,
      childProcesses: tree.length,
      rssMiB: { atReady, settled, afterSearch },
      firstSearchMs: searchMs,
      warmSearchMs,
    };
  } finally {
    remember(child.pid, `memory-${servers}`);
    await stop();
  }
}

/**
 * Reference for the memory part: the same servers started by this process, each with an SDK client
 * over stdio and in a session of its own like the gateway's, all at once; timed until every one has
 * listed its tools. This is what starting them costs on the machine, without a gateway.
 */
export async function directServers(servers: any, tools: any) {
  const start = performance.now();
  const settled = await Promise.allSettled(
    Array.from({ length: servers }, async (_, i) => {
      // setsid: a session of its own, as the gateway starts its servers (`detached`); with the
      // scheduler's autogroups, that decides how much of the CPU a starting server gets.
      const connection = await connectStdioProcess(
        `many${i}`,
        [process.execPath, MANY_TOOLS_SERVER],
        { MANY_TOOLS: String(tools) },
        'setsid',
      );
      remember(connection.pid, 'memory-direct');
      const { tools: listed } = await connection.client.listTools();
      return { connection, tools: listed.length };
    }),
  );
  const readyMs = performance.now() - start;
  const ok = settled.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  try {
    if (ok.length < servers) {
      const failure = settled.find((r) => r.status === 'rejected');
      throw new Error(`${servers - ok.length} of ${servers} servers failed to start: ${failure?.reason}`);
    }
    return {
      servers,
      tools: ok.reduce((sum, r) => sum + r.tools, 0),
      readyMs,
      rssMiB: ok.reduce((sum, r) => sum + (rssMiB(r.connection.pid) || 0), 0),
    };
  } finally {
    await Promise.all(ok.map((r) => r.connection.close()));
  }
}

export async function measureMemory(configs: any, { servers, tools }: any) {
  process.stderr.write('  memory: gateway with no servers\n');
  const none = await memoryRun(configs.none, 0);
  process.stderr.write(`  memory: gateway with ${servers} servers\n`);
  const many = await memoryRun(configs.many, servers);
  process.stderr.write(`  memory: reference, ${servers} servers started directly\n`);
  const direct = await directServers(servers, tools);
  return { none, many, direct };
}

// ---------------------------------------------------------------------------------------------
