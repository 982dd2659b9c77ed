/**
 * The deployment files, checked without a container engine (none runs on the machines these tests
 * run on):
 *
 * - Dockerfile: parsed; its build and start commands are run outside Docker in a temporary copy of
 *   the repo, stage by stage (each stage's filesystem is a folder; absolute paths map under it),
 *   and the image's CMD must start the gateway and its HEALTHCHECK must pass. What cannot run here
 *   is replaced and said so: `npm ci` (the registry's tarballs and native builds) by a copy of the
 *   installed node_modules made from the same lockfile, `chown` (the test is not root) dropped,
 *   `USER` not switched.
 * - compose.yaml: its structure (Redis, three replicas, the balancer, health checks) and the files
 *   it mounts, including the replicas' config, which must pass `aperture config validate`.
 * - deploy/kubernetes: every manifest validated against the Kubernetes JSON schemas of the
 *   `kubernetes-models` package, and what ties them together (labels, probes, names).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { waitFor } from '../support/fixture-servers.js';
import { freePort } from '../support/free-port.js';
import { ROOT } from './gateway-process.js';

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** A Dockerfile's stages and their instructions (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i] ?? '';
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = `${line.replace(/\\\s*$/, '')} ${(lines[++i] ?? '').trim()}`;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile:${start}: cannot read ${line}`);
    const keyword = (match[1] ?? '').toUpperCase();
    const args = (match[2] ?? '').trim();
    if (keyword === 'FROM') {
      const [from = '', , name] = args.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), from, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile:${start}: ${keyword} before FROM`);
    stage.instructions.push({ keyword, args, line: start });
  }
  return stages;
}

/** The command of a CMD or HEALTHCHECK CMD: exec form (a JSON array) only, as the Dockerfile uses. */
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`not an exec-form command: ${args}`);
  return parsed as string[];
}

const DOCKERFILE = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const stages = parseDockerfile(DOCKERFILE);
const runtime = stages.at(-1) as Stage;
const build = stages.find((s) => s.name === 'build') as Stage;
const of = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

/** Runs `command` with sh in `cwd`; resolves with its output, rejects with it on failure. */
function sh(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
  });
}

describe('Dockerfile', () => {
  it('has a build stage and a runtime stage that runs as a user, not root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build).toBeDefined();
    expect(runtime).not.toBe(build);
    const user = of(runtime, 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
  });

  it('installs with npm ci and builds in the build stage; the runtime stage gets production dependencies only', () => {
    const runs = of(build, 'RUN').map((i) => i.args);
    expect(runs.some((r) => /^npm ci\b/.test(r))).toBe(true);
    expect(runs.some((r) => /^npm run build\b/.test(r))).toBe(true);
    expect(runs.some((r) => /^npm prune --omit=dev\b/.test(r))).toBe(true);
    // The runtime stage installs nothing itself: it copies the pruned modules and the build.
    expect(of(runtime, 'RUN').some((i) => /\bnpm (ci|install|i)\b/.test(i.args))).toBe(false);
    const copies = of(runtime, 'COPY').map((i) => i.args);
    expect(copies.some((c) => c.includes('--from=build') && c.includes('/app/node_modules'))).toBe(true);
    expect(copies.some((c) => c.includes('--from=build') && c.includes('/app/dist'))).toBe(true);
  });

  it('checks its health on /healthz and listens where it says', () => {
    const health = of(runtime, 'HEALTHCHECK').at(-1)?.args ?? '';
    expect(health).toContain('/healthz');
    const cmd = execForm(of(runtime, 'CMD').at(-1)?.args ?? '');
    const port = cmd[cmd.indexOf('--port') + 1];
    expect(of(runtime, 'EXPOSE').map((i) => i.args)).toContain(port);
    expect(health).toContain(`:${port}/healthz`);
    expect(cmd[cmd.indexOf('--host') + 1]).toBe('0.0.0.0');
  });

  it('keeps node_modules, dist and .git out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const name of ['node_modules', 'dist', '.git']) expect(ignored).toContain(name);
  });

  describe('run outside Docker, in a temporary copy', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aperture-dockerfile-'));
    /** Each stage's filesystem root. */
    const rootOf = (stage: Stage) => path.join(dir, `stage-${stage.name}`);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** The build context: the repo's files (tracked or not ignored by git) less .dockerignore's. */
    function contextFiles(): string[] {
      const patterns = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'));
      const ignored = picomatch(patterns, { dot: true });
      const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .split('\0')
        .filter(Boolean);
      // A pattern names a file or a folder: a path is out when it or any folder above it matches.
      return files.filter((file) => {
        const parts = file.split('/');
        return (
          !parts.some((_, i) => ignored(parts.slice(0, i + 1).join('/'))) && existsSync(path.join(ROOT, file))
        );
      });
    }

    /** Runs one stage's instructions; returns its environment and working directory. */
    async function runStage(stage: Stage, log: string[]) {
      const root = rootOf(stage);
      mkdirSync(root, { recursive: true });
      const inStage = (p: string, workdir: string) =>
        p.startsWith('/') ? path.join(root, p) : path.join(workdir, p);
      /** Absolute paths in a command or value, moved under the stage's root. */
      const mapPaths = (text: string) => text.replace(/(^|[\s=:])(\/[\w.-]+(?:\/[\w.-]*)*)/g, `$1${root}$2`);
      let workdir = root;
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const { keyword, args, line } of stage.instructions) {
        if (keyword === 'WORKDIR') {
          workdir = inStage(args, workdir);
          mkdirSync(workdir, { recursive: true });
        } else if (keyword === 'ENV') {
          const [, name = '', value = ''] = /^(\S+?)[= ](.*)$/.exec(args) ?? [];
          env[name] = value.startsWith('/') ? mapPaths(value) : value;
        } else if (keyword === 'COPY') {
          const words = args.split(/\s+/);
          const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
          const [dest = '.', ...sources] = words.filter((w) => !w.startsWith('--')).reverse();
          const target = inStage(dest, workdir);
          for (const source of sources.reverse()) {
            if (from) {
              const other = stages.find((s) => s.name === from);
              if (!other) throw new Error(`Dockerfile:${line}: no stage ${from}`);
              const src = path.join(rootOf(other), source);
              const into = dest.endsWith('/') ? path.join(target, path.basename(source)) : target;
              cpSync(src, into, { recursive: true, verbatimSymlinks: true });
            } else if (source === '.') {
              for (const file of contextFiles()) {
                mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
                cpSync(path.join(ROOT, file), path.join(target, file));
              }
            } else {
              mkdirSync(target, { recursive: true });
              cpSync(path.join(ROOT, source), path.join(target, path.basename(source)));
            }
          }
        } else if (keyword === 'RUN') {
          if (/^npm ci\b/.test(args)) {
            // No registry tarballs or native builds here: the installed modules, from the same lockfile.
            log.push(`${stage.name}:${line} RUN ${args} -> hard-linked copy of the installed node_modules`);
            await sh(`cp -al ${JSON.stringify(path.join(ROOT, 'node_modules'))} node_modules`, workdir);
            continue;
          }
          // chown needs root; the test runs as the user the files already belong to.
          const command = args
            .split('&&')
            .map((part) => part.trim())
            .filter((part) => !part.startsWith('chown '))
            .join(' && ');
          log.push(`${stage.name}:${line} RUN ${mapPaths(command)}`);
          await sh(mapPaths(command), workdir, env);
        }
      }
      return { env, workdir };
    }

    it('builds, starts with the image command and passes the HEALTHCHECK', async () => {
      const log: string[] = [];
      for (const stage of stages.slice(0, -1)) await runStage(stage, log);
      const { env, workdir } = await runStage(runtime, log);

      // The runtime stage holds the build and production dependencies only.
      expect(existsSync(path.join(workdir, 'dist/cli/main.js'))).toBe(true);
      expect(existsSync(path.join(workdir, 'node_modules/hono/package.json'))).toBe(true);
      for (const dev of ['vitest', 'typescript', '@biomejs/biome', 'kubernetes-models']) {
        expect(existsSync(path.join(workdir, 'node_modules', dev)), dev).toBe(false);
      }
      expect(existsSync(path.join(workdir, 'src'))).toBe(false);

      // CMD as the image runs it, on a free port instead of 8080 (which may be taken here).
      const port = String(await freePort());
      const withPort = (words: string[]) => words.map((w) => w.replaceAll('8080', port));
      const [command = '', ...args] = withPort(execForm(of(runtime, 'CMD').at(-1)?.args ?? ''));
      const child = spawn(command === 'node' ? process.execPath : command, args, {
        cwd: workdir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      try {
        await waitFor(
          `/healthz 200 (${log.join('; ')})\n${stderr}`,
          async () => {
            if (child.exitCode !== null)
              throw new Error(`the gateway exited with ${child.exitCode}:\n${stderr}`);
            return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200;
          },
          30_000,
        );
        const health = withPort(execForm(of(runtime, 'HEALTHCHECK').at(-1)?.args ?? ''));
        const [hcCommand = '', ...hcArgs] = health;
        await sh(
          [hcCommand === 'node' ? process.execPath : hcCommand, ...hcArgs]
            .map((w) => `'${w.replaceAll("'", "'\\''")}'`)
            .join(' '),
          workdir,
          env,
        );
        // The state directory of the image was used, not one in the home folder.
        const stateDir = env.APERTURE_STATE_DIR as string;
        expect(stateDir.startsWith(dir)).toBe(true);
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }, 300_000);
  });
});

describe('compose.yaml', () => {
  const compose = YAML.parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
    services: Record<string, any>;
  };
  const services = compose.services;
  const replicas = Object.entries(services).filter(([, s]) => s.build === '.');
  const nginxConf = readFileSync(path.join(ROOT, 'deploy/nginx/nginx.conf'), 'utf8');
  const proxyRules = readFileSync(path.join(ROOT, 'deploy/nginx/aperture-proxy.conf'), 'utf8');

  it('runs Redis with a health check', () => {
    expect(services.redis?.image).toMatch(/^redis:/);
    expect(services.redis?.healthcheck?.test).toEqual(expect.arrayContaining(['redis-cli', 'ping']));
  });

  it('runs three replicas of the image on Redis, each with a health check on /healthz', () => {
    expect(replicas).toHaveLength(3);
    for (const [name, replica] of replicas) {
      expect(replica.depends_on?.redis?.condition, name).toBe('service_healthy');
      expect(replica.healthcheck?.test?.join(' '), name).toContain('/healthz');
      const config = replica.environment?.APERTURE_CONFIG as string;
      const mount = (replica.volumes as string[]).find((v) => v.split(':')[1] === config);
      expect(mount, name).toBeDefined();
      expect(existsSync(path.join(ROOT, mount?.split(':')[0] ?? ''))).toBe(true);
    }
  });

  it('balances over exactly those replicas with nginx, per request, with no affinity', () => {
    const lb = Object.values(services).find((s) => String(s.image).startsWith('nginx'));
    expect(lb).toBeDefined();
    expect(lb.ports).toBeDefined();
    for (const replica of replicas.map(([name]) => name)) {
      expect(lb.depends_on?.[replica]?.condition).toBe('service_healthy');
    }
    expect(lb.healthcheck?.test?.join(' ')).toContain('/healthz');
    for (const volume of lb.volumes as string[]) {
      expect(existsSync(path.join(ROOT, volume.split(':')[0] ?? ''))).toBe(true);
    }
    const upstreams = [...nginxConf.matchAll(/^\s*server\s+([\w.-]+):8080\b/gm)].map((m) => m[1]);
    expect(upstreams.sort()).toEqual(replicas.map(([name]) => name).sort());
    const rules = `${nginxConf}\n${proxyRules}`.replace(/#.*$/gm, '');
    for (const affinity of ['ip_hash', 'hash ', 'sticky', 'least_conn'])
      expect(rules).not.toContain(affinity);
    expect(proxyRules).toMatch(/^proxy_buffering off;/m);
    expect(proxyRules).toMatch(/^proxy_next_upstream error timeout/m);
    expect(nginxConf).toContain('include /etc/nginx/aperture-proxy.conf;');
  });

  it('gives the replicas a config that passes `aperture config validate` (state.driver: redis)', async () => {
    const file = path.join(ROOT, 'deploy/aperture.yaml');
    const { config } = await loadConfig({ file, cwd: ROOT, env: {} });
    expect(config.state).toMatchObject({ driver: 'redis', redis: { url: 'redis://redis:6379' } });
  });
});

describe('Kubernetes manifests', () => {
  const folder = path.join(ROOT, 'deploy/kubernetes');
  const kustomization = YAML.parse(readFileSync(path.join(folder, 'kustomization.yaml'), 'utf8')) as {
    resources: string[];
  };
  const manifests = kustomization.resources.flatMap((file) =>
    YAML.parseAllDocuments(readFileSync(path.join(folder, file), 'utf8')).map((doc) => ({
      file,
      value: doc.toJS() as any,
    })),
  );
  const find = (kind: string) => manifests.find((m) => m.value.kind === kind)?.value;

  /** The kubernetes-models class of a manifest, by apiVersion and kind. */
  async function model(value: { apiVersion: string; kind: string }) {
    const module = (await import(`kubernetes-models/${value.apiVersion}/${value.kind}`)) as Record<
      string,
      any
    >;
    const Model = module[value.kind] ?? module.default;
    if (typeof Model !== 'function') throw new Error(`no model for ${value.apiVersion} ${value.kind}`);
    return new Model(value) as { validate(): void };
  }

  it('lists every manifest of the folder in kustomization.yaml', () => {
    const files = readdirSync(folder).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(manifests.map((m) => m.value.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service'].sort(),
    );
  });

  it('validates every manifest against the Kubernetes JSON schemas (kubernetes-models)', async () => {
    for (const { file, value } of manifests) {
      const instance = await model(value);
      expect(() => instance.validate(), file).not.toThrow();
    }
  });

  it('would catch a broken manifest', async () => {
    const broken = structuredClone(find('Deployment'));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    await expect(model(broken).then((m) => m.validate())).rejects.toThrow(/containerPort/);
  });

  it('ties them together: probes, labels, the config and the secret', async () => {
    const deployment = find('Deployment');
    const pod = deployment.spec.template;
    const container = pod.spec.containers[0];
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    const labels = pod.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    const service = find('Service');
    expect(service.spec.selector).toEqual(labels);
    expect(service.spec.sessionAffinity).toBe('None');
    expect(container.ports.map((p: any) => p.name)).toContain(service.spec.ports[0].targetPort);
    expect(find('PodDisruptionBudget').spec.selector.matchLabels).toEqual(labels);
    expect(find('HorizontalPodAutoscaler').spec.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: deployment.metadata.name,
    });

    const configMap = find('ConfigMap');
    const configVolume = pod.spec.volumes.find((v: any) => v.configMap?.name === configMap.metadata.name);
    expect(configVolume).toBeDefined();
    const mount = container.volumeMounts.find((m: any) => m.name === configVolume.name);
    const configPath = container.env.find((e: any) => e.name === 'APERTURE_CONFIG').value as string;
    const [key] = Object.keys(configMap.data);
    expect(configPath).toBe(`${mount.mountPath}/${key}`);
    expect(pod.spec.volumes.some((v: any) => v.secret?.secretName)).toBe(true);

    // The ConfigMap's config is valid with its secret present (through the env provider here).
    const dir = mkdtempSync(path.join(tmpdir(), 'aperture-k8s-'));
    try {
      const file = path.join(dir, key as string);
      await import('node:fs/promises').then((fs) => fs.writeFile(file, configMap.data[key as string]));
      const { config } = await loadConfig({ file, cwd: dir, env: { REDIS_URL: 'redis://:pw@redis:6379' } });
      expect(config.state).toMatchObject({ driver: 'redis', redis: { url: 'redis://:pw@redis:6379' } });
      await expect(loadConfig({ file, cwd: dir, env: {} })).rejects.toMatchObject({ code: 'config_invalid' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
