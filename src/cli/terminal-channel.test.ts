import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { approvalForm } from '../operations/approvals/approval-desk.js';
import { terminalChannel } from './terminal-channel.js';

const request = {
  toolId: 'repo:delete',
  caller: { identity: 'cli' },
  surface: 'cli',
  args: {},
  rule: 'ask',
  reason: 'No undo',
};

function terminal(tty = true) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const output = Object.assign(new PassThrough(), { isTTY: tty });
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
  });
  return { input, output, shown: () => shown };
}

describe('terminalChannel', () => {
  it('asks an approval on the terminal: y accepts, anything else declines', async () => {
    for (const [typed, action] of [
      ['y\n', 'accept'],
      ['yes\n', 'accept'],
      ['\n', 'decline'],
      ['no\n', 'decline'],
    ] as const) {
      const t = terminal();
      const channel = terminalChannel(t);
      expect(channel?.capabilities()).toEqual({ elicitation: { form: {} } });
      const answer = channel?.request('elicitation/create', approvalForm(request, { repo: 'acme/site' }));
      setTimeout(() => t.input.write(typed), 5);
      expect(await answer).toEqual({ action });
      expect(t.shown()).toContain('Approve the call of repo:delete?');
      expect(t.shown()).toContain('No undo');
      expect(t.shown()).toContain('Approve? [y/N]');
    }
  });

  it("refuses what is not an approval (a downstream server's own form)", async () => {
    const channel = terminalChannel(terminal());
    await expect(
      channel?.request('elicitation/create', {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      }),
    ).rejects.toThrow(/only approvals/);
    await expect(channel?.request('sampling/createMessage', {})).rejects.toThrow(/only approvals/);
  });

  it('is absent without a terminal (a pipe, a script)', () => {
    expect(terminalChannel(terminal(false))).toBeUndefined();
  });

  it('stops asking when the call is cancelled', async () => {
    const abort = new AbortController();
    const asked = terminalChannel(terminal())?.request(
      'elicitation/create',
      approvalForm(request, {}),
      abort.signal,
    );
    abort.abort();
    await expect(asked).rejects.toThrow();
  });
});
