import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Spawns a fixture server script with this Node; it prints `listening <url>` on stdout once it
 * serves (`env` added to this process's). Resolves with the process and that URL; rejects if it
 * exits first.
 */
export function startListeningFixture(
  script: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`fixture ${script} exited with ${code}`)));
  });
}
