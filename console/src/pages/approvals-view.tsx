import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ApprovalList, api } from '../api.js';

/** How often the list of held calls is read again while the page is open. */
const REFRESH_MS = 2000;

/**
 * The calls held for approval on this gateway (`effect: approve` rules answered by admins), each
 * with Approve and Deny: the held call runs, or its caller gets `approval_denied`. Read every two
 * seconds; nothing is shown while nothing waits.
 */
export function ApprovalsView() {
  const [list, setList] = useState<ApprovalList | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let stopped = false;
    api<ApprovalList>('/api/admin/approvals')
      .then((answer) => {
        if (!stopped) {
          setList(answer);
          setFailure(undefined);
        }
      })
      .catch((error: unknown) => {
        if (!stopped)
          setFailure(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error));
      });
    const timer = setTimeout(() => setTick((n) => n + 1), REFRESH_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [tick]);

  const answer = async (id: string, decision: 'approve' | 'deny') => {
    try {
      await api(`/api/admin/approvals/${encodeURIComponent(id)}/${decision}`, { method: 'POST' });
    } catch (error) {
      setFailure(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error));
    }
    setTick((n) => n + 1);
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
