import { useEffect, useState } from 'preact/hooks';
import { type AdminSession, ApiError, api, credential, setCredential } from './api.js';
import { ActivityPage } from './pages/activity-page.js';
import { AddServerPage } from './pages/add-server-page.js';
import { CatalogPage } from './pages/catalog-page.js';
import { CodePage } from './pages/code-page.js';
import { ConfigPage } from './pages/config-page.js';
import { LoginPage } from './pages/login-page.js';
import { ServersPage } from './pages/servers-page.js';
import { ToolPage } from './pages/tool-page.js';
import { ToolsetsPage } from './pages/toolsets-page.js';
import { Icon, type IconName, Logo } from './ui/icons.js';
import { LoadingState } from './ui/states.js';
import { useTheme } from './ui/theme.js';

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

const PAGES: [string, string, IconName, (s: AdminSession) => boolean][] = [
  ['catalog', 'Catalog', 'catalog', () => true],
  ['toolsets', 'Toolsets & skills', 'toolsets', () => true],
  ['servers', 'Servers', 'servers', (s) => s.admin],
  ['add-server', 'Add server', 'search', (s) => s.admin],
  ['activity', 'Activity', 'activity', (s) => s.admin],
  ['code', 'Code', 'code', (s) => s.codeMode],
  ['config', 'Config', 'config', (s) => s.admin],
];

/** The light/dark switch: its name says what pressing it does. */
function ThemeToggle() {
  const [theme, toggle] = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      class="icon-button"
      data-testid="theme-toggle"
      aria-label={`Switch to the ${next} theme`}
      title={`Switch to the ${next} theme`}
      onClick={toggle}
    >
      <Icon name={theme === 'dark' ? 'sun' : 'moon'} size={18} />
    </button>
  );
}

/** The console: asks for a credential when the gateway wants one, then serves the pages. */
export function App() {
  const route = useRoute();
  const [session, setSession] = useState<AdminSession | undefined>();
  const [needsLogin, setNeedsLogin] = useState(false);
  const [loginError, setLoginError] = useState<string | undefined>();
  const [menuOpen, setMenuOpen] = useState(false);
  const page = route[0] ?? 'catalog';
  // A page chosen from the collapsed menu closes it.
  useEffect(() => setMenuOpen(false), [route.join('/')]);

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
      <main class="center">
        <div class="card login-card">
          <div class="brand">
            <Logo size={32} />
            <h1>Aperture console</h1>
          </div>
          {needsLogin ? (
            <LoginPage
              error={loginError}
              onLogin={(value) => {
                setCredential(value);
                setLoginError(undefined);
                load();
              }}
            />
          ) : loginError ? (
            <p class="error" role="alert">
              {loginError}
            </p>
          ) : (
            <LoadingState what="Connecting to the gateway…" />
          )}
        </div>
        <div class="login-theme">
          <ThemeToggle />
        </div>
      </main>
    );
  }
  return (
    <div class="shell">
      <header class="topbar">
        <button
          type="button"
          class="icon-button menu-button"
          aria-label="Menu"
          aria-expanded={menuOpen}
          aria-controls="nav-pages"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <Icon name="menu" size={20} />
        </button>
        <a class="brand" href="#/catalog">
          <Logo size={26} />
          <h1>Aperture</h1>
        </a>
        <nav aria-label="Pages" id="nav-pages" class={menuOpen ? 'open' : undefined}>
          {PAGES.filter(([, , , shown]) => shown(session)).map(([id, label, icon]) => (
            <a
              key={id}
              href={`#/${id}`}
              // Even the page already shown: choosing it closes the collapsed menu.
              onClick={() => setMenuOpen(false)}
              aria-current={page === id || (page === 'tool' && id === 'catalog') ? 'page' : undefined}
            >
              <Icon name={icon} />
              {label}
            </a>
          ))}
        </nav>
        <span class="who" title={session.toolsets ? `toolsets: ${session.toolsets.join(', ')}` : undefined}>
          <span class="avatar" aria-hidden="true">
            {session.identity.slice(0, 1).toUpperCase()}
          </span>
          <span class="who-text">
            {session.identity}
            {session.admin ? ' (admin)' : ''}
            {session.toolsets ? ` — toolsets: ${session.toolsets.join(', ')}` : ''}
          </span>
        </span>
        <ThemeToggle />
        {session.authEnabled && (
          <button
            type="button"
            class="icon-button"
            aria-label="Log out"
            title="Log out"
            onClick={() => {
              setCredential(undefined);
              setSession(undefined);
              setNeedsLogin(true);
            }}
          >
            <Icon name="logout" size={18} />
          </button>
        )}
      </header>
      <main class="content">
        {page === 'tool' && route[1] ? (
          // Keyed by the tool: opening another tool starts its page afresh (arguments, Try-it result).
          <ToolPage key={route.slice(1).join('/')} id={route.slice(1).join('/')} />
        ) : page === 'toolsets' ? (
          <ToolsetsPage />
        ) : page === 'servers' ? (
          <ServersPage />
        ) : page === 'add-server' ? (
          <AddServerPage />
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
    </div>
  );
}
