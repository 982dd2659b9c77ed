import { createInterface } from 'node:readline/promises';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { ClientChannel } from '../foundation/ports/client-channel.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { APPROVAL_META } from '../operations/approvals/approval-desk.js';

/** Where the terminal channel asks and reads (the process's stdio by default; tests give streams). */
export interface TerminalChannelOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * The way back to the person running a one-shot command (`aperture run`): a call a policy rule
 * holds for approval is asked on the terminal — the tool, the rule's reason, the redacted
 * arguments — and `y` runs it, anything else declines (`approval_denied`). Only approvals are
 * answered here: a downstream server's own elicitation (a form to fill) is refused as before. With
 * no terminal (a pipe, a script), undefined: the held call waits for an admin of a running gateway
 * there is none of, so it ends with `approval_timeout` — run such calls through a served gateway.
 */
export function terminalChannel(options: TerminalChannelOptions = {}): ClientChannel | undefined {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  if (!input.isTTY || !output.isTTY) return undefined;
  const channel: ClientChannel = {
    key: 'terminal',
    get session() {
      return channel;
    },
    capabilities: () => ({ elicitation: { form: {} } }),
    request: async (method, params, signal) => {
      const meta = (params?._meta as Record<string, unknown> | undefined)?.[APPROVAL_META];
      if (method !== 'elicitation/create' || meta === undefined) {
        throw new GatewayError('invalid_request', `The terminal answers only approvals, not ${method}`);
      }
      const lines = createInterface({ input, output, terminal: false });
      try {
        output.write(`${terminalSafe(String(params?.message ?? ''), true)}\n`);
        const answer = await lines.question('Approve? [y/N] ', signal ? { signal } : {});
        return { action: /^y(es)?$/i.test(answer.trim()) ? 'accept' : 'decline' };
      } finally {
        lines.close();
      }
    },
    notify: async () => {},
    onClose: () => {},
  };
  return channel;
}
