import { useState } from 'preact/hooks';
import {
  api,
  errorText,
  type InstallPlan,
  type RegistrySearch,
  type SourceList,
  type TrustState,
  useApi,
} from '../api.js';
import { Icon } from '../ui/icons.js';
import { EmptyState } from '../ui/states.js';

type Found = RegistrySearch['servers'][number];

/**
 * "Add server": search the configured registries, see what a server needs (its variables, secret
 * or not, how it runs, its transport and the sandbox it would get), and add it as `aperture add`
 * does. Secrets are never typed in here: the page names the `${secret:NAME}` to store.
 */
export function AddServerPage() {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found[] | undefined>();
  const [chosen, setChosen] = useState<Found | undefined>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [key, setKey] = useState('');
  const [plan, setPlan] = useState<InstallPlan | undefined>();
  const [added, setAdded] = useState<InstallPlan | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const request = (server: Found) => ({
    name: server.name,
    version: server.version,
    ...(key.trim() === '' ? {} : { as: key.trim() }),
    values: Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')),
  });
  const search = () =>
    run(async () => {
      const answer = await api<RegistrySearch>(
        `/api/admin/registry/servers?search=${encodeURIComponent(query)}`,
      );
      setFound(answer.servers);
      setChosen(undefined);
      setPlan(undefined);
      setAdded(undefined);
    });
  const choose = (server: Found) =>
    run(async () => {
      setChosen(server);
      setValues({});
      setAdded(undefined);
      setPlan(await api<InstallPlan>('/api/admin/registry/plan', { method: 'POST', body: request(server) }));
    }).catch(() => {});
  const add = (server: Found) =>
    run(async () => {
      setAdded(
        await api<InstallPlan>('/api/admin/registry/install', { method: 'POST', body: request(server) }),
      );
    });

  return (
    <section aria-labelledby="add-server-title">
      <div class="page-head">
        <div>
          <h2 id="add-server-title">Add server</h2>
          <p>
            Install a server from the configured MCP registries into the config file. What it adds starts in
            the <code>scan</code> trust tier: its tools are served once the poisoning detector passes them,
            else quarantined.
          </p>
        </div>
      </div>
      <form
        class="search-row"
        onSubmit={(event) => {
          event.preventDefault();
          void search();
        }}
      >
        <input
          type="search"
          aria-label="Search the registries"
          placeholder="Search the registries"
          value={query}
          onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          <Icon name="search" size={16} /> Search
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {found && found.length === 0 && (
        <EmptyState title="No server matches" icon="search">
          Try other words, or check <code>registries:</code> in the config.
        </EmptyState>
      )}
      {found && found.length > 0 && (
        <ul class="card-list" aria-label="Registry servers">
          {found.map((server) => (
            <li
              key={`${server.registry}/${server.name}`}
              class="card"
              data-testid={`registry-${server.name}`}
            >
              <h4>
                {server.name} <span class="muted">{server.version}</span>
              </h4>
              <p class="muted">{server.description}</p>
              <p>
                Runs: {server.runs.join(', ') || 'nothing runnable'} · from {server.registry}
              </p>
              <button type="button" disabled={busy} onClick={() => void choose(server)}>
                See what it needs
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen && (
        <article class="card" aria-label={`Install ${chosen.name}`} data-testid="install-card">
          <h3>{chosen.name}</h3>
          {plan && (
            <dl class="facts">
              <dt>Runs via</dt>
              <dd>{plan.via}</dd>
              <dt>Transport</dt>
              <dd data-testid="install-transport">{plan.transport}</dd>
              <dt>Sandbox</dt>
              <dd data-testid="install-sandbox">{plan.sandbox}</dd>
            </dl>
          )}
          {chosen.needs.length === 0 ? (
            <p>It needs nothing from you.</p>
          ) : (
            <ul class="needs" aria-label="What it needs">
              {chosen.needs.map((need) =>
                need.secret ? (
                  <li key={need.name} data-testid={`need-${need.name}`}>
                    <Icon name="lock" size={14} /> <strong>{need.name}</strong> is a secret
                    {need.required ? '' : ' (optional)'}: store it as <code>{`\${secret:${need.name}}`}</code>{' '}
                    (with the default provider, an environment variable of that name where the gateway runs).
                    {need.description ? ` ${need.description}` : ''}
                  </li>
                ) : (
                  <li key={need.name} data-testid={`need-${need.name}`}>
                    <label>
                      {need.name}
                      {need.required ? '' : ' (optional)'}
                      {need.description ? ` — ${need.description}` : ''}
                      <input
                        value={values[need.name] ?? ''}
                        onInput={(event) =>
                          setValues({ ...values, [need.name]: (event.target as HTMLInputElement).value })
                        }
                      />
                    </label>
                  </li>
                ),
              )}
            </ul>
          )}
          <label>
            Server key (default: {plan?.key ?? 'the last part of the name'})
            <input
              aria-label="Server key"
              value={key}
              onInput={(event) => setKey((event.target as HTMLInputElement).value)}
            />
          </label>
          <button type="button" class="primary" disabled={busy} onClick={() => void add(chosen)}>
            Add {chosen.name}
          </button>
        </article>
      )}
      {added && (
        <p class="notice" role="status" data-testid="install-done">
          <Icon name="check" size={16} /> Added server <strong>{added.key}</strong> to the config
          {added.secrets.length > 0 ? `; store ${added.secrets.join(', ')} before it can start` : ''}. See its
          state and tools on <a href="#/servers">Servers</a> (new tools wait in quarantine until trusted:{' '}
          <code>aperture trust approve</code>).
        </p>
      )}
      {added && <InstalledStatus server={added.key} />}
    </section>
  );
}

/**
 * Where a server just added stands, read again every two seconds: its state, how many of its tools
 * are served, and which wait in quarantine (and why) until an admin trusts them.
 */
function InstalledStatus({ server }: { server: string }) {
  const sources = useApi<SourceList>('/api/admin/sources', { refreshMs: 2000 });
  const trust = useApi<TrustState>('/api/admin/trust', { refreshMs: 2000 });
  const source = sources.data?.sources.find((entry) => entry.id === `mcp:${server}`);
  const held = (trust.data?.quarantined ?? []).filter((issue) => issue.sourceId === `mcp:${server}`);
  return (
    <article class="card" data-testid="installed-status">
      <h3>{server}</h3>
      <p>
        State: <span data-testid="installed-state">{source?.state ?? 'not started yet'}</span>
        {' · '}
        Tools served: <span data-testid="installed-served">{source?.tools ?? 0}</span>
        {' · '}
        In quarantine: <span data-testid="installed-quarantined">{held.length}</span>
      </p>
      {held.length > 0 && (
        <ul data-testid="installed-held">
          {held.map((issue) => (
            <li key={issue.id}>
              <code>{issue.id}</code> — {issue.reason}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
