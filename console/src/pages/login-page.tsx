import { useState } from 'preact/hooks';

/** Asks for an API key or a bearer token (kept in `sessionStorage` for this tab only). */
export function LoginPage(props: { error: string | undefined; onLogin: (credential: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="login"
      aria-label="Log in"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) props.onLogin(value.trim());
      }}
    >
      <p class="login-hint">
        This gateway requires credentials. Paste an API key or a bearer token; it is kept for this tab only.
      </p>
      <label for="credential">API key or bearer token</label>
      <input
        id="credential"
        type="password"
        autoComplete="off"
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
      />
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <p class="run-row">
        <button type="submit">Log in</button>
      </p>
    </form>
  );
}
