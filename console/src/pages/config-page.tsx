import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';

/** The effective config, every secret masked by the gateway before it leaves. */
export function ConfigPage() {
  const [config, setConfig] = useState<unknown>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api<{ config: unknown }>('/api/admin/config').then(
      (answer) => setConfig(answer.config),
      (e: unknown) => setError(e instanceof ApiError ? `${e.code}: ${e.message}` : String(e)),
    );
  }, []);
  return (
    <section aria-labelledby="config-title">
      <h2 id="config-title">Effective configuration</h2>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : (
        <pre data-testid="config">{config === undefined ? 'Loading…' : JSON.stringify(config, null, 2)}</pre>
      )}
    </section>
  );
}
