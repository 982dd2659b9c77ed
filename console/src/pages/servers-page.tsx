import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type SourceList, useApi } from '../api.js';
import { Icon } from '../ui/icons.js';
import { EmptyState, ErrorState, LoadingState } from '../ui/states.js';
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

/** How a stdio server is sandboxed, in a few words: `sandbox: bwrap, network none`, `not sandboxed`. */
export function sandboxLabel(sandbox: {
  engine: string;
  network: string | string[];
  reason?: string | undefined;
}): string {
  if (sandbox.engine === 'none') return 'not sandboxed';
  const network =
    typeof sandbox.network === 'string' ? sandbox.network : `allow ${sandbox.network.join(', ')}`;
  return `sandbox: ${sandbox.engine}, network ${network}`;
}

/** Downstream MCP servers, OpenAPI services and A2A agents with their state; reconnect for MCP servers. */
export function ServersPage() {
  // While a login started here is pending, the status is re-read so the new token shows up.
  const [watching, setWatching] = useState(0);
  const listed = useApi<SourceList>('/api/admin/sources', watching > 0 ? { refreshMs: 2000 } : {});
  const sources = listed.data?.sources;
  const [message, setMessage] = useState<string | undefined>();
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
  const withOAuth = (sources ?? []).some((source) => source.oauth);
  return (
    <section aria-labelledby="servers-title">
      <div class="page-head">
        <div>
          <h2 id="servers-title">Servers and sources</h2>
          <p>Downstream MCP servers, OpenAPI services and A2A agents, and how each is doing.</p>
        </div>
        <p class="notice" aria-live="polite" data-testid="servers-message">
          {message}
        </p>
      </div>
      {listed.failure && !sources ? (
        <ErrorState failure={listed.failure} what="The servers page" onRetry={() => void listed.reload()} />
      ) : !sources ? (
        <LoadingState what="Loading the sources…" />
      ) : sources.length === 0 ? (
        <EmptyState title="No remote sources configured" icon="servers">
          Add an MCP server under <code>servers:</code>, an OpenAPI service or an A2A agent to the config,
          then reload.
        </EmptyState>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
        <section class="table-wrap stacked" tabIndex={0} aria-label="Sources">
          <table>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">State</th>
                <th scope="col">Kind</th>
                <th scope="col">Protocol</th>
                <th scope="col">Up for</th>
                <th scope="col" class="num">
                  Tools
                </th>
                <th scope="col">Circuit</th>
                <th scope="col">Last error</th>
                {withOAuth && <th scope="col">OAuth</th>}
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sources.map((source) => {
                // An MCP server's source id is `mcp:<its key in the config>`, the name reconnect takes.
                const name = source.id.replace(/^[a-z0-9]+:/, '');
                return (
                  <tr key={name}>
                    <td data-label="Source" class="nowrap">
                      <strong>{name}</strong>
                      <div class="muted">
                        <code>{source.id}</code>
                      </div>
                    </td>
                    <td data-label="State" class="nowrap">
                      <span class={`badge ${stateTone(source.state ?? '')}`} data-testid={`state-${name}`}>
                        {source.state}
                      </span>
                      {source.transitions && source.transitions.length > 1 && (
                        <div class="muted" data-testid={`transitions-${name}`}>
                          {source.transitions.slice(-3).map((t) => (
                            <div key={t.at} title={t.reason ?? ''}>
                              {t.state} {new Date(t.at).toLocaleTimeString()}
                            </div>
                          ))}
                        </div>
                      )}
                    </td>
                    <td data-label="Kind" class="nowrap">
                      {source.kind ?? ''}
                      {source.transport && <div class="muted">{source.transport}</div>}
                      {source.sandbox && (
                        <div
                          class="muted note"
                          data-testid={`sandbox-${name}`}
                          title={source.sandbox.writable.join('\n')}
                        >
                          {sandboxLabel(source.sandbox)}
                        </div>
                      )}
                    </td>
                    <td data-label="Protocol" class="nowrap" data-testid={`protocol-${name}`}>
                      {source.protocolVersion ?? ''}
                    </td>
                    <td
                      data-label="Up for"
                      class="nowrap"
                      data-testid={`uptime-${name}`}
                      title={source.connectedAt ?? ''}
                    >
                      {source.connectedAt ? uptime(source.connectedAt, Date.now()) : ''}
                    </td>
                    <td data-label="Tools" class="num">
                      {source.tools}
                    </td>
                    <td data-label="Circuit" class="nowrap">
                      <span
                        class={`badge ${source.circuit === 'open' ? 'bad' : source.circuit === 'half-open' ? 'warn' : 'plain'}`}
                        data-testid={`circuit-${name}`}
                      >
                        {source.circuit ?? 'off'}
                      </span>
                    </td>
                    <td data-label="Last error" class="cell-error">
                      {source.lastError ? `${source.lastError.code}: ${source.lastError.message}` : ''}
                    </td>
                    {withOAuth && (
                      <td data-label="OAuth">
                        {source.oauth && (
                          <OAuthLogin
                            name={name}
                            sets={source.oauth}
                            onStarted={() => setWatching((n) => n + 1)}
                          />
                        )}
                      </td>
                    )}
                    <td data-label="Actions" class="nowrap">
                      {source.kind === 'mcp' && (
                        <button
                          type="button"
                          class="secondary small"
                          aria-label={`Reconnect ${name}`}
                          onClick={() => reconnect(name)}
                        >
                          <Icon name="refresh" />
                          Reconnect
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      {listed.failure && sources && (
        <p class="error" role="alert">
          {listed.error}
        </p>
      )}
      {sources
        ?.filter((source) => (source.stderr ?? []).length > 0)
        .map((source) => {
          const name = source.id.replace(/^[a-z0-9]+:/, '');
          return (
            <details key={name} class="stderr card" data-testid={`stderr-${name}`}>
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

/** The badge tone of a source's state: connected is good, connecting or degraded a warning, the rest bad. */
function stateTone(state: string): string {
  if (state === 'connected' || state === 'ready') return 'ok';
  if (state === 'connecting' || state === 'reconnecting' || state === 'degraded' || state === 'pending')
    return 'warn';
  return 'bad';
}
