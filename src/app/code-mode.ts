import { CodeExecutor } from '../composition/code/code-executor.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { createChildProcessSandbox } from '../execution/code/child-process-sandbox.js';
import { createQuickJsSandbox } from '../execution/code/quickjs-sandbox.js';
import { codeModeOsSandbox } from './code-mode-os-sandbox.js';

/**
 * Code mode as `codeMode` configures it: the executor on the chosen sandbox runtime (QuickJS in
 * process, or a pool of child processes), and how to close that sandbox. Undefined when disabled.
 */
export function codeMode(
  settings: ApertureConfig['codeMode'],
  osSandbox?: { settings: ApertureConfig['sandbox']; warn: (reason: string) => void },
): { executor: CodeExecutor; close: () => Promise<void> } | undefined {
  if (!settings.enabled) return undefined;
  const pool = { poolSize: settings.poolSize, maxQueue: settings.maxQueue };
  // The `process` runtime's processes are OS-sandboxed as stdio servers are (`sandbox.default`).
  const confined =
    settings.runtime === 'process' && osSandbox
      ? codeModeOsSandbox(osSandbox.settings, osSandbox.warn)
      : undefined;
  const sandbox =
    settings.runtime === 'process'
      ? createChildProcessSandbox({
          ...pool,
          maxRunsPerProcess: settings.maxRunsPerProcess,
          ...(confined ? { osSandbox: confined } : {}),
        })
      : createQuickJsSandbox(pool);
  const executor = new CodeExecutor({
    sandbox,
    defaults: settings.defaults,
    maxima: settings.maxima,
    maxLogBytes: settings.maxLogBytes,
    maxResultBytes: settings.maxResultBytes,
  });
  return { executor, close: () => sandbox.close() };
}
