import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from './config-schema.js';

/** The messages of a config that must fail, as `path: message` lines. */
function problems(config: unknown): string[] {
  const parsed = configSchema.safeParse(config);
  if (parsed.success) throw new Error('expected the config to be refused');
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const server = (sandbox: unknown) => ({ servers: { files: { command: 'node', args: ['x.js'], sandbox } } });

describe('the sandbox keys', () => {
  it('defaults to on, auto, refused; a server takes off | on | required | a profile', () => {
    expect(configSchema.parse({}).sandbox).toEqual({ default: 'on', engine: 'auto', audit: 'refused' });
    for (const sandbox of [
      'off',
      'on',
      'required',
      { network: 'none' },
      { network: { allow: ['api.github.com:443'] } },
    ]) {
      expect(configSchema.safeParse(server(sandbox)).success).toBe(true);
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-schema-'));
    const parsed = configSchema.parse(
      server({ filesystem: { write: [dir] }, limits: { memoryMb: '256', pids: 32, cpuSeconds: 5 } }),
    );
    const entry = parsed.servers.files;
    expect(entry?.kind === 'stdio' ? entry.sandbox : undefined).toEqual({
      filesystem: { write: [dir], deny: [] },
      network: 'open',
      limits: { memoryMb: 256, pids: 32, cpuSeconds: 5 },
    });
  });

  it('refuses an unknown profile key, naming it', () => {
    expect(problems(server({ netwrok: 'none' })).join('\n')).toMatch(/servers\.files\.sandbox.*netwrok/);
  });

  it('refuses a writable path that does not exist, naming the key and the path', () => {
    const lines = problems(server({ filesystem: { write: ['/no/such/dir-42'] } }));
    expect(lines.join('\n')).toMatch(
      /servers\.files\.sandbox\.filesystem\.write\.0: \/no\/such\/dir-42 does not exist/,
    );
  });

  it('refuses a relative writable path', () => {
    expect(problems(server({ filesystem: { write: ['data'] } })).join('\n')).toMatch(
      /write\.0: must be an absolute path/,
    );
  });

  it('refuses a host pattern that cannot match, naming it', () => {
    const lines = problems(server({ network: { allow: ['api.*.com'] } })).join('\n');
    expect(lines).toMatch(
      /servers\.files\.sandbox\.network\.allow\.0: "api\.\*\.com" has "\*" inside a name/,
    );
    expect(problems(server({ network: { allow: ['https://x.com'] } })).join('\n')).toMatch(/is a URL/);
    expect(
      problems(
        server({ secrets: { TOKEN: { hosts: ['x.com:70000'] } }, network: { allow: ['x.com'] } }),
      ).join('\n'),
    ).toMatch(/secrets\.TOKEN\.hosts\.0: .*port "70000"/);
  });

  it('refuses bound secrets without an allow-list network (only that goes through the proxy)', () => {
    expect(problems(server({ secrets: { TOKEN: { hosts: ['x.com'] } } })).join('\n')).toMatch(
      /servers\.files\.sandbox\.secrets: needs network: \{ allow/,
    );
  });

  it('refuses engine srt with the reason', () => {
    expect(problems({ sandbox: { engine: 'srt' } }).join('\n')).toMatch(
      /sandbox\.engine: srt .*Node >= 22\.12/,
    );
  });

  it('refuses a sandbox on a remote server (it has no process to confine)', () => {
    const lines = problems({ servers: { r: { url: 'http://127.0.0.1:1/mcp', sandbox: 'on' } } }).join('\n');
    expect(lines).toMatch(/servers\.r.*sandbox/);
  });
});
