import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';

interface SourceStatus {
  /** `mcp:<server>`, `openapi:<namespace>`, `a2a:<agent>`. */
  id: string;
  kind?: string;
  state: string;
  tools: number;
  transport?: string;
  lastError?: string | { code: string; message: string };
  circuit?: string;
  [key: string]: unknown;
}

/** Downstream MCP servers, OpenAPI services and A2A agents with their state; reconnect for MCP servers. */
export function ServersPage() {
  const [sources, setSources] = useState<SourceStatus[] | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const refresh = () =>
    api<{ sources: SourceStatus[] }>('/api/admin/sources').then(
      (answer) => setSources(answer.sources),
      (e: unknown) => setMessage(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e)),
    );
  useEffect(() => {
    void refresh();
  }, []);
  const reconnect = async (name: string) => {
    setMessage(`Reconnecting ${name}…`);
    try {
      await api(`/api/admin/sources/${encodeURIComponent(name)}/reconnect`, { method: 'POST' });
      setMessage(`${name} reconnected`);
    } catch (error) {
      setMessage(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error));
    }
    await refresh();
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
              <th scope="col">Tools</th>
              <th scope="col">Circuit</th>
              <th scope="col">Last error</th>
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
                  <td>{source.tools}</td>
                  <td data-testid={`circuit-${name}`}>{source.circuit ?? 'off'}</td>
                  <td>
                    {typeof source.lastError === 'object'
                      ? `${source.lastError.code}: ${source.lastError.message}`
                      : (source.lastError ?? '')}
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
    </section>
  );
}
