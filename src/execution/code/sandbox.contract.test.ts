import { createChildProcessSandbox } from './child-process-sandbox.js';
import { createQuickJsSandbox } from './quickjs-sandbox.js';
import { runSandboxContract } from './sandbox.contract.js';

runSandboxContract('QuickJsSandbox (worker threads)', (options) => createQuickJsSandbox(options));
// Processes are reused here to keep the suite fast when run from src/ (each process start pays for
// tsx twice); the default of one process per run is covered in child-process-sandbox.test.ts.
runSandboxContract('ChildProcessSandbox', (options) =>
  createChildProcessSandbox({ maxRunsPerProcess: 1000, ...options }),
);
