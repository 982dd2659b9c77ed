import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { driveLogin } from '../support/oauth-servers.js';
import { CLI } from './gateway-process.js';

/**
 * Runs `aperture login …` (or `aperture doctor …`) without blocking this process, where the
 * authorization server and the MCP server run; when it prints a URL, `onUrl` completes the login.
 */
export async function runLogin(
  args: string[],
  env: NodeJS.ProcessEnv,
  onUrl?: (url: string) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...(args[0] === 'doctor' ? [] : ['login']), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let driving: Promise<void> | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/auth\S*)$/m.exec(stdout)?.[1];
    if (url && onUrl && !driving) driving = onUrl(url);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  await driving;
  return { code, stdout, stderr };
}

/** Completes a login printed by `aperture login` as `account`, delivering the code to its loopback. */
export function loginAs(account: string): (url: string) => Promise<void> {
  return async (url) => {
    const callback = await driveLogin(url, account);
    const answer = await fetch(callback);
    expect(answer.status).toBe(200);
  };
}

/** Waits until `/readyz` says every server was tried. */
export async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${url}/readyz`)).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the gateway never became ready');
}
