#!/usr/bin/env node
/**
 * Builds dist/ (`npm run build`) unless it is current, showing progress; run by `prepare` (so
 * `npm install` in a clone builds) and by `prestart` (so `npm start` serves what the sources say).
 *
 *   node scripts/build-if-stale.mjs            build when a source is newer than the last build
 *   node scripts/build-if-stale.mjs --stamp    record a finished build (the last step of `npm run build`)
 *
 * Why: the README's first command (`npm install && npm start`) used to build twice — once in
 * `prepare`, again silently when `npx aperture` installed the clone into npx's cache, which runs
 * `prepare` again — and npm hides the output of install scripts, so the minute of building looked
 * like a hang. Now a second build is skipped, and progress goes to the terminal itself when npm
 * has taken stdout and stderr (`/dev/tty`), else to stderr.
 *
 * "Current" means: `dist/.build-stamp` (written when `npm run build` finished) is newer than every
 * source file of the build (src/, console/, scripts/, package.json, tsconfig files). A failed or
 * interrupted build leaves no stamp (the build starts by deleting dist/), so the next run builds.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');

if (process.argv.includes('--stamp')) {
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.exit(0);
}

/** Not a clone (an installed package has no sources): nothing to build. */
if (!existsSync(path.join(root, 'tsconfig.build.json'))) process.exit(0);

/** The newest modification time of the build's inputs, in ms. */
function newestSource() {
  let newest = 0;
  const visit = (file) => {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of readdirSync(file)) if (name !== 'node_modules') visit(path.join(file, name));
    } else if (stat.mtimeMs > newest) newest = stat.mtimeMs;
  };
  for (const input of ['src', 'console', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'])
    visit(path.join(root, input));
  return newest;
}

/** Where progress goes: the terminal when npm pipes our output (install scripts), else stderr. */
function progressSink() {
  if (process.stderr.isTTY) return { write: (text) => process.stderr.write(text), close() {} };
  try {
    const fd = openSync('/dev/tty', 'w');
    return {
      write: (text) => {
        writeSync(fd, text);
        // The captured output keeps it too (npm shows it when the script fails; tests read it).
        process.stderr.write(text);
      },
      close: () => closeSync(fd),
    };
  } catch {
    return { write: (text) => process.stderr.write(text), close() {} };
  }
}

const built = statSync(stamp, { throwIfNoEntry: false });
const sink = progressSink();
if (built && built.mtimeMs >= newestSource()) {
  sink.write('aperture: dist/ is current (built after the last source change); not rebuilding\n');
  sink.close();
  process.exit(0);
}

const started = Date.now();
sink.write(
  `aperture: building dist/ ${built ? '(sources changed since the last build)' : '(first build)'}: TypeScript, the CLI bundle, the console — about a minute\n`,
);
const child = spawn('npm', ['run', '--silent', 'build'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  shell: process.platform === 'win32',
});
// Each step of the build names itself (tsc prints nothing when it succeeds): a heartbeat shows it is alive.
const heartbeat = setInterval(
  () => sink.write(`aperture: still building (${Math.round((Date.now() - started) / 1000)} s)\n`),
  15_000,
);
child.stdout.on('data', (chunk) => sink.write(chunk.toString()));
child.stderr.on('data', (chunk) => sink.write(chunk.toString()));
child.on('close', (code, signal) => {
  clearInterval(heartbeat);
  const seconds = Math.round((Date.now() - started) / 1000);
  sink.write(
    code === 0
      ? `aperture: built dist/ in ${seconds} s\n`
      : `aperture: the build failed (${signal ?? `exit ${code}`}) after ${seconds} s\n`,
  );
  sink.close();
  process.exit(code ?? 1);
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
