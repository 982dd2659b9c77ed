import { useState } from 'preact/hooks';
import { type ApprovalList, api, errorText, useApi } from '../api.js';

/** How often the list of held calls is read again while the page is open. */
const REFRESH_MS = 2000;

/**
 * The calls held for approval on this gateway (`effect: approve` rules answered by admins), each
 * with Approve and Deny: the held call runs, or its caller gets `approval_denied`. Read every two
 * seconds; nothing is shown while nothing waits.
 */
export function ApprovalsView() {
  const read = useApi<ApprovalList>('/api/admin/approvals', { refreshMs: REFRESH_MS });
  const list = read.data;
  // A refused answer (the call ended meanwhile, say) is shown until the next one.
  const [answerFailure, setAnswerFailure] = useState<string | undefined>();
  const failure = answerFailure ?? read.error;

  const answer = async (id: string, decision: 'approve' | 'deny') => {
    try {
      await api(`/api/admin/approvals/${encodeURIComponent(id)}/${decision}`, { method: 'POST' });
      setAnswerFailure(undefined);
    } catch (error) {
      setAnswerFailure(errorText(error));
    }
    await read.reload();
  };

  const pending = list?.approvals ?? [];
  return (
    <section aria-labelledby="approvals-title" data-testid="approvals">
      <h3 id="approvals-title">Waiting for approval</h3>
      {failure ? (
        <p role="alert" class="error">
          {failure}
        </p>
      ) : null}
      {pending.length === 0 ? (
        <p class="muted" data-testid="approvals-empty">
          No call waits for approval
          {list
            ? ` (answered by ${list.via === 'admin' ? 'admins' : 'the client when it can, else admins'}, within ${Math.round(list.timeoutMs / 1000)} s)`
            : ''}
          .
        </p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
        <section class="table-wrap" tabIndex={0} aria-label="Calls waiting for approval">
          <table data-testid="approvals-table">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Caller</th>
                <th scope="col">Rule</th>
                <th scope="col">Arguments</th>
                <th scope="col">Until</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {pending.map((entry) => (
                <tr key={entry.id} data-testid="approval-row" data-id={entry.id}>
                  <td class="nowrap">{entry.tool}</td>
                  <td class="nowrap">
                    {entry.caller} ({entry.surface})
                  </td>
                  <td>
                    {entry.rule}
                    {entry.reason ? `: ${entry.reason}` : ''}
                  </td>
                  <td>
                    <code>{JSON.stringify(entry.args)}</code>
                  </td>
                  <td class="nowrap">{new Date(entry.expiresAt).toLocaleTimeString()}</td>
                  <td class="nowrap">
                    <button
                      type="button"
                      data-testid="approve"
                      onClick={() => void answer(entry.id, 'approve')}
                    >
                      Approve
                    </button>{' '}
                    <button type="button" data-testid="deny" onClick={() => void answer(entry.id, 'deny')}>
                      Deny
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
