// Runs the tests that must pass under another Node major than the one npm installed with: the
// installed-package end-to-end test (state written under one Node is kept under the other) and
// the node:sqlite state store. The Node 22 binary is the one of the `node` dev dependency.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.dirname(require.resolve('node/package.json'));
const binary = [path.join(root, 'bin', 'node'), path.join(root, 'bin', 'node.exe')].find((file) =>
  existsSync(file),
);
if (binary === undefined) {
  process.stderr.write('test-node22: the `node` dev dependency has no binary here; skipped\n');
  process.exit(0);
}
const vitest = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const files = ['test/e2e/install-package.test.ts', 'src/operations/state/node-sqlite-driver.test.ts'];
const run = spawnSync(binary, [vitest, 'run', ...files, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
