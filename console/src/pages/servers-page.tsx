import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type SourceList, useApi } from '../api.js';
import { OAuthLogin } from './oauth-login.js';

/** `3 d 4 h`, `2 h 5 min`, `4 min 10 s`, `12 s`: how long since `since`, to `now`. */
export function uptime(since: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

/** Downstream MCP servers, OpenAPI services and A2A agents with their state; reconnect for MCP servers. */
export function ServersPage() {
  // While a login started here is pending, the status is re-read so the new token shows up.
  const [watching, setWatching] = useState(0);
  const listed = useApi<SourceList>('/api/admin/sources', watching > 0 ? { refreshMs: 2000 } : {});
  const sources = listed.data?.sources;
  const [message, setMessage] = useState<string | undefined>();
  // A failed read is said where the reconnect outcomes are.
  useEffect(() => {
    if (listed.error !== undefined) setMessage(listed.error);
  }, [listed.error]);
  useEffect(() => {
    if (watching === 0) return undefined;
    const stop = setTimeout(() => setWatching(0), 5 * 60_000);
    return () => clearTimeout(stop);
  }, [watching]);
  const reconnect = async (name: string) => {
    setMessage(`Reconnecting ${name}…`);
    try {
      await api(`/api/admin/sources/${encodeURIComponent(name)}/reconnect`, { method: 'POST' });
      setMessage(`${name} reconnected`);
    } catch (error) {
      setMessage(errorText(error));
    }
    await listed.reload();
  };
  return (
    <section aria-labelledby="servers-title">
      <h2 id="servers-title">Servers and sources</h2>
      <p aria-live="polite" data-testid="servers-message">
        {message}
      </p>
      {!sources ? (
        <p>Loading…</p>
      ) : sources.length === 0 ? (
        <p>No remote sources configured.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Transport</th>
              <th scope="col">Protocol</th>
              <th scope="col">Up for</th>
              <th scope="col">Tools</th>
              <th scope="col">Circuit</th>
              <th scope="col">Last error</th>
              <th scope="col">OAuth</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((source) => {
              // An MCP server's source id is `mcp:<its key in the config>`, the name reconnect takes.
              const name = source.id.replace(/^[a-z0-9]+:/, '');
              return (
                <tr key={name}>
                  <td>{source.id}</td>
                  <td>{source.kind ?? ''}</td>
                  <td data-testid={`state-${name}`}>{source.state}</td>
                  <td>{source.transport ?? ''}</td>
                  <td data-testid={`protocol-${name}`}>{source.protocolVersion ?? ''}</td>
                  <td data-testid={`uptime-${name}`} title={source.connectedAt ?? ''}>
                    {source.connectedAt ? uptime(source.connectedAt, Date.now()) : ''}
                  </td>
                  <td>{source.tools}</td>
                  <td data-testid={`circuit-${name}`}>{source.circuit ?? 'off'}</td>
                  <td>{source.lastError ? `${source.lastError.code}: ${source.lastError.message}` : ''}</td>
                  <td>
                    {source.oauth && (
                      <OAuthLogin
                        name={name}
                        sets={source.oauth}
                        onStarted={() => setWatching((n) => n + 1)}
                      />
                    )}
                  </td>
                  <td>
                    {source.kind === 'mcp' && (
                      <button type="button" class="secondary" onClick={() => reconnect(name)}>
                        Reconnect {name}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {sources
        ?.filter((source) => (source.stderr ?? []).length > 0)
        .map((source) => {
          const name = source.id.replace(/^[a-z0-9]+:/, '');
          return (
            <details key={name} class="stderr" data-testid={`stderr-${name}`}>
              <summary>
                Recent stderr of {name} (
                {source.stderr?.length === 1 ? '1 line' : `${source.stderr?.length} lines`}, secrets masked)
              </summary>
              <pre>{source.stderr?.join('\n')}</pre>
            </details>
          );
        })}
    </section>
  );
}
