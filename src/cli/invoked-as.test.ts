import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Invocation, invokedAs } from './invoked-as.js';

const clone = path.resolve('/home/me/aperture');
const at = (over: Partial<Invocation>): Invocation => ({
  script: path.join(clone, 'dist/cli/main.js'),
  env: {},
  cwd: clone,
  packageRoot: clone,
  ...over,
});

describe('invokedAs', () => {
  it('names an installed bin as `aperture`, wherever the user is', () => {
    expect(invokedAs(at({ script: '/usr/local/bin/aperture', cwd: '/srv/project' }))).toBe('aperture');
    // A global install's package folder is not the user's clone: still the bare command.
    expect(
      invokedAs(
        at({
          script: '/usr/local/bin/aperture',
          cwd: '/srv/project',
          packageRoot: '/usr/local/lib/node_modules/aperture-gateway',
        }),
      ),
    ).toBe('aperture');
  });

  it('keeps `npx aperture` for npx and npm exec, and for package scripts run in the clone', () => {
    expect(invokedAs(at({ env: { npm_command: 'exec' } }))).toBe('npx aperture');
    expect(invokedAs(at({ env: { npm_command: 'start' }, cwd: path.join(clone, 'examples') }))).toBe(
      'npx aperture',
    );
  });

  it('outside the clone, a package script never suggests npx (it would fetch another package)', () => {
    expect(invokedAs(at({ env: { npm_command: 'run-script' }, cwd: '/srv/project' }))).toBe(
      `node ${path.join(clone, 'dist/cli/main.js')}`,
    );
  });

  it('repeats `node dist/cli/main.js` as typed: relative under the working directory, else absolute', () => {
    expect(invokedAs(at({}))).toBe('node dist/cli/main.js');
    expect(invokedAs(at({ cwd: '/srv/project' }))).toBe(`node ${path.join(clone, 'dist/cli/main.js')}`);
    expect(invokedAs(at({ script: '/a b/dist/cli/main.js', cwd: '/srv' }))).toBe(
      'node "/a b/dist/cli/main.js"',
    );
  });
});
