import { useState } from 'preact/hooks';
import { api, type ConfigAnswer, type ConfigCheck, errorText, useApi } from '../api.js';

/** The effective config (every secret masked by the gateway), and `config validate` on a pasted file. */
export function ConfigPage() {
  const effective = useApi<ConfigAnswer>('/api/admin/config');
  const config = effective.data?.config;
  const [checkError, setCheckError] = useState<string | undefined>();
  const error = checkError ?? effective.error;
  const [text, setText] = useState('');
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml');
  const [check, setCheck] = useState<ConfigCheck | undefined>();
  const validate = async (event: Event) => {
    event.preventDefault();
    setCheck(undefined);
    try {
      setCheck(
        await api<ConfigCheck>('/api/admin/config/validate', { method: 'POST', body: { text, format } }),
      );
    } catch (e) {
      setCheckError(errorText(e));
    }
  };
  return (
    <section aria-labelledby="config-title">
      <h2 id="config-title">Configuration</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <h3>Validate a config</h3>
      <form onSubmit={validate}>
        <label for="config-text">Config file (pasted)</label>
        <textarea
          id="config-text"
          rows={8}
          spellcheck={false}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
        <label for="config-format">Format</label>
        <select
          id="config-format"
          value={format}
          onChange={(e) => setFormat((e.target as HTMLSelectElement).value as 'yaml' | 'json')}
        >
          <option value="yaml">YAML</option>
          <option value="json">JSON</option>
        </select>
        <p>
          <button type="submit">Validate</button>
        </p>
      </form>
      <div aria-live="polite" data-testid="config-check">
        {check?.valid === true && (
          <p class="ok">Valid.{check.warnings.length > 0 ? ` Warnings: ${check.warnings.join('; ')}` : ''}</p>
        )}
        {check?.valid === false && (
          <p class="error">
            <strong>{check.error.code}</strong>: {check.error.message}
          </p>
        )}
      </div>
      <h3>Effective configuration (secrets masked)</h3>
      <pre data-testid="config">{config === undefined ? 'Loading…' : JSON.stringify(config, null, 2)}</pre>
    </section>
  );
}
