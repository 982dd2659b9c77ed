import { useEffect, useState } from 'preact/hooks';
import { type AdminSession, ApiError, api, credential, setCredential } from './api.js';
import { ActivityPage } from './pages/activity-page.js';
import { CatalogPage } from './pages/catalog-page.js';
import { CodePage } from './pages/code-page.js';
import { ConfigPage } from './pages/config-page.js';
import { LoginPage } from './pages/login-page.js';
import { ServersPage } from './pages/servers-page.js';
import { ToolPage } from './pages/tool-page.js';
import { ToolsetsPage } from './pages/toolsets-page.js';

/** The current hash route, e.g. `#/tool/builtin:echo` → `['tool', 'builtin:echo']`. */
function useRoute(): string[] {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'catalog').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const PAGES: [string, string, (s: AdminSession) => boolean][] = [
  ['catalog', 'Catalog', () => true],
  ['toolsets', 'Toolsets & skills', () => true],
  ['servers', 'Servers', (s) => s.admin],
  ['activity', 'Activity', (s) => s.admin],
  ['code', 'Code', (s) => s.codeMode],
  ['config', 'Config', (s) => s.admin],
];

/** The console: asks for a credential when the gateway wants one, then serves the pages. */
export function App() {
  const route = useRoute();
  const [session, setSession] = useState<AdminSession | undefined>();
  const [needsLogin, setNeedsLogin] = useState(false);
  const [loginError, setLoginError] = useState<string | undefined>();

  const load = () => {
    api<AdminSession>('/api/admin/session')
      .then((s) => {
        setSession(s);
        setNeedsLogin(false);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
          if (credential()) setLoginError(`${error.code}: ${error.message}`);
          setCredential(undefined);
          setNeedsLogin(true);
        } else setLoginError(String(error));
      });
  };
  useEffect(load, []);

  if (needsLogin || !session) {
    return (
      <main>
        <h1>Aperture console</h1>
        {needsLogin ? (
          <LoginPage
            error={loginError}
            onLogin={(value) => {
              setCredential(value);
              setLoginError(undefined);
              load();
            }}
          />
        ) : (
          <p>{loginError ?? 'Loading…'}</p>
        )}
      </main>
    );
  }
  const page = route[0] ?? 'catalog';
  return (
    <>
      <header>
        <h1>Aperture</h1>
        <nav aria-label="Pages">
          {PAGES.filter(([, , shown]) => shown(session)).map(([id, label]) => (
            <a key={id} href={`#/${id}`} aria-current={page === id ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who">
          {session.identity}
          {session.admin ? ' (admin)' : ''}
          {session.toolsets ? ` — toolsets: ${session.toolsets.join(', ')}` : ''}
        </span>
        {session.authEnabled && (
          <button
            type="button"
            onClick={() => {
              setCredential(undefined);
              setSession(undefined);
              setNeedsLogin(true);
            }}
          >
            Log out
          </button>
        )}
      </header>
      <main>
        {page === 'tool' && route[1] ? (
          <ToolPage id={route.slice(1).join('/')} />
        ) : page === 'toolsets' ? (
          <ToolsetsPage />
        ) : page === 'servers' ? (
          <ServersPage />
        ) : page === 'activity' ? (
          <ActivityPage />
        ) : page === 'code' ? (
          <CodePage />
        ) : page === 'config' ? (
          <ConfigPage />
        ) : (
          <CatalogPage />
        )}
      </main>
    </>
  );
}
