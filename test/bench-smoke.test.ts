/**
 * Smoke run of every benchmark: each script runs as a real process (tsx, as `npm run bench` runs
 * them) with the smallest sizes, must exit 0 and print its result lines. The figures are not
 * checked (they mean nothing at these sizes): what is checked is that a rename or a changed
 * signature in src/ breaks the build, not the next measurement. Needs `npm run build` (the
 * benchmarks start `dist/cli/main.js` as a user does).
 *
 * The benchmarks that read the tool-retrieval data sets skip by name when they are absent
 * (`BENCH_BENCHMARKS`, else `bench/data/tool-retrieval`: they do not ship with the repository). The script that regenerates the poisoning detector's weights
 * (`scripts/train-poisoning-model.ts --check`) runs here too: it must still fit exactly the
 * committed `src/catalog/trust/intent-model.json`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clusterMissing } from './support/replica-cluster.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BENCHMARKS = process.env.BENCH_BENCHMARKS ?? path.join(ROOT, 'bench', 'data', 'tool-retrieval');
const HAS_BENCHMARKS = existsSync(path.join(BENCHMARKS, 'toollens', 'tools.jsonl'));

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `<script>` (a path from the repository root) under tsx with `args`; resolves when it exits. */
function runBench(script: string, args: string[], timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], {
      cwd: ROOT,
      // The data sets' folder through the benchmarks' own environment fallback.
      env: { ...process.env, BENCH_BENCHMARKS: BENCHMARKS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // SIGTERM first: a benchmark ends the servers it started before it exits.
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** One benchmark: the script, its smallest sizes and the lines its result must contain. */
interface Smoke {
  script: string;
  args: string[];
  expect: RegExp[];
  needsBenchmarks?: boolean;
  /** Needs redis-server and nginx (the scale-out benchmark). */
  needsCluster?: boolean;
}

const TINY_CODE_MODE = [
  '--latency-n',
  '5',
  '--latency-warmup',
  '1',
  '--latency-block',
  '5',
  '--fanout-reps',
  '2',
  '--fanout-warmup',
  '1',
  '--fanout-calls',
  '2',
  '--throughput-seconds',
  '1',
  '--throughput-rounds',
  '1',
  '--throughput-warmup',
  '0',
  '--throughput-alone',
  '1',
  '--throughput-configs',
  'pool2',
  '--memory-configs',
  'pool2',
  '--release-wait-ms',
  '500',
];

const SMOKES: Smoke[] = [
  {
    script: 'bench/run-tool-latency.ts',
    args: [
      '--n',
      '10',
      '--warmup',
      '2',
      '--block',
      '5',
      '--in-process-calls',
      '20',
      '--transports',
      'stdio,http,http2026',
    ],
    expect: [
      /^## `run_tool` latency/m,
      /^### stdio$/m,
      /^### Streamable HTTP$/m,
      /^### Streamable HTTP, 2026-07-28/m,
      /^### The pipeline alone, in process$/m,
      /^\| .*baseline.* \| \d/m,
    ],
  },
  {
    script: 'bench/npx-first-answer.ts',
    args: ['--runs', '1'],
    expect: [/^\| cold \(first start: installs\) \| \d+ ms/m, /^\| warm \(later starts\) \| \d+ ms/m],
  },
  {
    script: 'bench/bounded-regex.ts',
    args: ['--calls', '50', '--rounds', '1', '--killer', '16'],
    expect: [/bounded \/ default/],
  },
  {
    script: 'bench/search-latency.ts',
    args: ['--sizes', '200', '--queries', '20', '--builds', '1', '--passes', '1'],
    expect: [/^## Search latency \(in process\)/m, /^\| 200 \| bm25 \| \d/m, /^\| 200 \| lexical \| \d/m],
  },
  {
    script: 'bench/search-hybrid-latency.ts',
    args: ['--size', '200', '--queries', '5', '--learned', '50', '--distinct', '10'],
    expect: [/^## Hybrid search latency and memory/m, /^\| hybrid \| \d/m],
  },
  {
    script: 'bench/startup.ts',
    // The build compared with itself: the comparison's rows and line come out.
    args: ['--runs', '1', '--calls', '10', '--compare-cli', 'dist/cli/main.js'],
    expect: [
      /^## Start-up and memory/m,
      /^\| .* \| \d/m,
      /^\| compared build `serve --stdio`/m,
      /^Compared build /m,
    ],
  },
  {
    script: 'bench/code-mode.ts',
    args: TINY_CODE_MODE,
    expect: [/^## Code mode \(`execute_code`\)/m, /^### Latency of a constant program/m, /^\| stdio \| /m],
  },
  {
    script: 'bench/rest-throughput.ts',
    args: ['--connections', '2', '--rounds', '1', '--seconds', '1'],
    expect: [/^## REST vs MCP Streamable HTTP/m, /^\| REST/m],
  },
  {
    script: 'bench/downstream/downstream.ts',
    args: [
      '--latency-n',
      '10',
      '--latency-warmup',
      '2',
      '--latency-block',
      '5',
      '--load-calls',
      '5',
      '--load-clients',
      '2',
      '--load-rounds',
      '1',
      '--memory-servers',
      '2',
      '--memory-tools',
      '5',
    ],
    expect: [
      /^## Downstream MCP servers \(aggregation\)/m,
      /^\| direct: server-everything over stdio \| \d/m,
      /^\| reference: byte-copying Node relay, stdio \| \d/m,
      /^\| reference: minimal SDK relay \(Server → Client\), stdio \| \d/m,
      /^\| reference: fixed answers over node:http, no MCP, no downstream, 2025 session \| \d/m,
      /^\| reference: fixed answers over node:http, no MCP, no downstream, 2026-07-28 \| \d/m,
      /^reference: fixed answers over node:http.* the faster peer .*\(Reference: a floor: no relay on this wire answers faster\.\)$/m,
      /^\| reference: minimal SDK v2 relay \(Server → Client\), stdio \| \d/m,
      /^reference: minimal SDK v2 relay over HTTP .*2026-07-28 at p50 is .*\(Reference: the smallest relay on the SDK the gateway runs\.\)$/m,
      /^\| mcp-proxy v6, Streamable HTTP \| \d/m,
      /^\| supergateway v4 `--stateful`, Streamable HTTP \| \d/m,
      /^\| Aperture over Streamable HTTP, `run_tool`, 2026-07-28 stateless \| \d/m,
      /^### Concurrent sessions/m,
      /^Against supergateway \(stateful\), round by round/m,
      /^### Memory with many downstream servers/m,
    ],
  },
  {
    // Without Debian's chromium it prints the bundle sizes and says the browser figures were skipped.
    script: 'bench/console-catalog.ts',
    args: ['--tools', '20,50', '--loads', '1', '--queries', '2'],
    expect: [
      /^## Web console: bundle/m,
      /^First load .*gzipped: \*\*\d/m,
      /^(\| 50 \| \d|Browser figures skipped)/m,
    ],
  },
  {
    script: 'bench/session-memory.ts',
    args: ['--sessions', '20', '--warmup', '5', '--idle-ms', '4000'],
    // 20 sessions are below the RSS noise of one GC: the figure may come out negative here.
    expect: [/^## Idle MCP sessions \(2025 era\): memory/m, /^RSS per idle session -?\d+\.\d KiB/m],
  },
  {
    script: 'bench/shared-sessions.ts',
    args: ['--n', '20', '--warmup', '5', '--block', '10'],
    expect: [
      /^## 2025-era session calls: memory vs Redis-shared sessions/m,
      /^\| default \(memory\), this build \| \d/m,
    ],
  },
  {
    script: 'bench/operations.ts',
    args: ['--ops-n', '100', '--ops-warmup', '10', '--ops-block', '50'],
    expect: [/^## Operations middlewares \(observability\) per call/m, /^\| .* \| \d/m],
  },
  {
    script: 'bench/audit.ts',
    args: ['--audit-n', '40', '--audit-warmup', '10', '--audit-block', '20'],
    expect: [/^## Audit trail: a line per call/m, /^\| audit\.calls, file trail \| \d/m, /chain intact/m],
  },
  {
    script: 'bench/crash-recovery.ts',
    args: [
      '--clients',
      '4',
      '--sessions',
      '2',
      '--refusals',
      '10',
      '--after-ms',
      '1000',
      '--idle-wait-ms',
      '1000',
      '--kill-at-ms',
      '500',
      '--call-ms',
      '50',
    ],
    expect: [/^\| build \| clients \| calls from the kill on/m, /^\| after \| 4 \| \d/m],
  },
  {
    script: 'bench/reload.ts',
    args: ['--servers', '3', '--sessions', '2', '--runs', '1'],
    expect: [
      /^## Hot reload: 3 servers, one changed, 2 open sessions/m,
      /^\| reload .* \| 2\/2 \| 2\/3 \| 1 \|$/m,
    ],
  },
  {
    script: 'bench/scale-out.ts',
    args: ['--scale-sessions', '3', '--scale-calls', '5'],
    expect: [
      /^## Scale-out: 3 replicas vs 1 behind nginx/m,
      /^\| 1 \| 15 \| 0 \| \d/m,
      /^\| 3 \| 15 \| 0 \| \d/m,
    ],
    needsCluster: true,
  },
  {
    script: 'bench/run-all.ts',
    args: ['--only', 'search', '--sizes', '200', '--queries', '20', '--builds', '1', '--passes', '1'],
    expect: [/^## Targets/m, /^## Search latency \(in process\)/m],
  },
  {
    script: 'bench/search-quality.ts',
    args: ['--only', 'livemcpbench'],
    expect: [/^## Search quality \(bm25/m, /^\| livemcpbench \| \d/m],
    needsBenchmarks: true,
  },
  {
    // Synthetic catalogs always; the benchmark sets too when they are present.
    script: 'bench/tokens.ts',
    args: ['--sizes', '5,50', '--queries', '5', '--sample', '10'],
    expect: [/^## Tokens per task \(o200k_base, search limit k = 5/m, /^\| synthetic 50 \| 50 \| 5 \| \d/m],
  },
  {
    // The poisoning detector's learned signal: cross validation, and the committed weights are
    // what the script fits.
    script: 'scripts/train-poisoning-model.ts',
    args: ['--check'],
    expect: [/^\| 9 \| 12 \| \d+ \| \d+ \| \d+ \| 10 \| 0 \| 0 \|/m, /^committed weights match the fit$/m],
  },
];

describe.concurrent('benchmarks run (smallest sizes)', () => {
  for (const smoke of SMOKES) {
    const noData = smoke.needsBenchmarks === true && !HAS_BENCHMARKS;
    const noCluster = smoke.needsCluster === true ? clusterMissing() : '';
    const skip = noData || noCluster !== '';
    const name = noData
      ? `${smoke.script} (skipped: no data sets at ${BENCHMARKS})`
      : `${smoke.script}${noCluster}`;
    it.skipIf(skip)(
      name,
      async () => {
        const outcome = await runBench(smoke.script, smoke.args, 100_000);
        expect(
          { code: outcome.code, signal: outcome.signal },
          `${smoke.script} failed:\n${outcome.stderr.slice(-3000)}`,
        ).toEqual({ code: 0, signal: null });
        for (const line of smoke.expect) expect(outcome.stdout).toMatch(line);
      },
      120_000,
    );
  }
});
