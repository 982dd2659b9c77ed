import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectSandboxEngine, resetSandboxEngine } from '../../foundation/sandbox/sandbox-engine.js';
import {
  directoriesInArgs,
  directoriesInEnv,
  planSummary,
  type SandboxContext,
  serverSandboxPlan,
} from './server-sandbox.js';

const context = (defaultMode: 'on' | 'off' | 'required' = 'on'): SandboxContext => ({
  settings: { default: defaultMode, audit: 'refused' },
  stateDir: '/var/lib/aperture',
  configFile: '/etc/aperture.yaml',
});

describe('serverSandboxPlan without an engine', () => {
  const saved = process.env.APERTURE_BWRAP;
  afterEach(() => {
    if (saved === undefined) delete process.env.APERTURE_BWRAP;
    else process.env.APERTURE_BWRAP = saved;
    resetSandboxEngine();
  });

  it('refuses a required sandbox naming the key and the missing engine; runs unconfined when only on', () => {
    process.env.APERTURE_BWRAP = '/nonexistent/bwrap';
    resetSandboxEngine();
    const required = serverSandboxPlan('files', 'required', [], context());
    expect(required.kind).toBe('refused');
    expect(required.kind === 'refused' && required.reason).toMatch(
      /servers\.files\.sandbox is "required" but no sandbox engine is available: bubblewrap \(\/nonexistent\/bwrap\) is not installed/,
    );
    const byDefault = serverSandboxPlan('files', undefined, [], context('required'));
    expect(byDefault.kind === 'refused' && byDefault.reason).toMatch(/^sandbox\.default is "required"/);
    const on = serverSandboxPlan('files', undefined, [], context());
    expect(on).toEqual({ kind: 'unconfined', reason: expect.stringMatching(/not installed/) });
    expect(planSummary(on)).toMatchObject({ engine: 'none', reason: expect.stringMatching(/not installed/) });
  });
});

const engine = detectSandboxEngine();

describe.skipIf(!engine.available)(
  `serverSandboxPlan with bubblewrap${engine.available ? '' : ' (skipped: no engine)'}`,
  () => {
    it('off is off, whatever the default', () => {
      expect(serverSandboxPlan('files', 'off', [], context('required'))).toEqual({ kind: 'off' });
      expect(serverSandboxPlan('files', undefined, [], context('off'))).toEqual({ kind: 'off' });
    });

    it('confines by default: credentials, the state directory and the config unreadable; scratch in the state directory', () => {
      const plan = serverSandboxPlan('my server', undefined, [], context());
      if (plan.kind !== 'sandboxed') throw new Error(plan.kind);
      const { profile } = plan;
      expect(profile.deny).toEqual(
        expect.arrayContaining([
          path.join(homedir(), '.ssh'),
          path.join(homedir(), '.aws'),
          path.join(homedir(), '.config/gcloud'),
          path.join(homedir(), '.npmrc'),
          '/var/lib/aperture',
          '/etc/aperture.yaml',
        ]),
      );
      expect(profile.readable).toEqual(['/var/lib/aperture/packages']);
      expect(profile.scratchDir).toBe('/var/lib/aperture/sandbox/my_server');
      expect(profile.network).toEqual({ mode: 'open' });
      expect(planSummary(plan)).toEqual({
        engine: 'bwrap',
        network: 'open',
        writable: ['/var/lib/aperture/sandbox/my_server'],
      });
    });

    it('counts existing absolute directories in the arguments as writable (never /), and takes the profile', () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'plan-'));
      const plan = serverSandboxPlan(
        'files',
        {
          network: { allow: ['api.github.com:443'] },
          limits: { pids: 8 },
          filesystem: { write: [], deny: ['/opt/x'] },
        },
        ['-y', 'pkg', dir, '/', '/no/such/dir', 'relative'],
        context(),
      );
      if (plan.kind !== 'sandboxed') throw new Error(plan.kind);
      expect(plan.profile.writable).toEqual([dir]);
      expect(plan.profile.deny).toContain('/opt/x');
      expect(plan.profile.network).toEqual({ mode: 'allow', allow: ['api.github.com:443'] });
      expect(plan.profile.limits).toEqual({ pids: 8 });
      expect(directoriesInArgs(['/', dir, dir])).toEqual([dir]);
    });
  },
);

describe('directoriesInEnv', () => {
  it('grants the folder of a file path and an existing directory, never /, a top-level folder or home', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'env-dirs-'));
    const home = mkdtempSync(path.join(tmpdir(), 'env-home-'));
    expect(
      directoriesInEnv(
        {
          MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl'),
          DATA: dir,
          CONFIG: '/etc/app.conf',
          ROOTISH: '/x.txt',
          NOTES: path.join(home, 'notes.txt'),
          MISSING: '/no/such/dir/file',
          TOKEN: 'not-a-path',
          LIST: `${dir}:/usr`,
        },
        home,
      ),
    ).toEqual([dir]);
  });
});
