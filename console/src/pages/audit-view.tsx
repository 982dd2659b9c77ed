import { type AuditList, useApi } from '../api.js';

/** How often the trail is read again while the page is open. */
const REFRESH_MS = 5000;

/**
 * The last lines of the audit trail (`GET /api/admin/audit`): denials, approvals and their
 * answers, admin actions and, with `audit.calls`, every call — newest first. `aperture audit
 * verify` checks the chain; this view only reads it.
 */
export function AuditView() {
  const read = useApi<AuditList>('/api/admin/audit?limit=100', { refreshMs: REFRESH_MS });
  const list = read.data;
  const failure = read.error;

  const lines = [...(list?.lines ?? [])].reverse();
  return (
    <section aria-labelledby="audit-title" data-testid="audit">
      <h3 id="audit-title">Audit trail</h3>
      {failure ? (
        <p role="alert" class="error">
          {failure}
        </p>
      ) : null}
      {list ? (
        <p class="muted">
          Kept in {list.where};{' '}
          {list.calls ? 'every call is recorded' : 'calls are not recorded (audit.calls: false)'}.
        </p>
      ) : null}
      {lines.length === 0 ? (
        <p class="muted">Nothing recorded yet.</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
        <section class="table-wrap" tabIndex={0} aria-label="Audit trail">
          <table data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col" class="num">
                  #
                </th>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Actor</th>
                <th scope="col">Tool</th>
                <th scope="col">Decision</th>
                <th scope="col">Rule</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((line) => (
                <tr key={line.seq} data-testid="audit-row">
                  <td class="num">{line.seq}</td>
                  <td class="nowrap">{new Date(line.time).toLocaleTimeString()}</td>
                  <td class="nowrap">{line.kind}</td>
                  <td class="nowrap">{line.actor}</td>
                  <td class="nowrap">{line.tool ?? ''}</td>
                  <td class="nowrap">{line.decision ?? ''}</td>
                  <td class="nowrap">{line.rule ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
