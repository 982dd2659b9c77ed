import { useState } from 'preact/hooks';
import { api, type ConfigAnswer, type ConfigCheck, errorText, useApi } from '../api.js';
import { Icon } from '../ui/icons.js';
import { EmptyState, ErrorState, LoadingState } from '../ui/states.js';
import { splitConfig } from './config-split.js';

/** The effective config (every secret masked by the gateway), and `config validate` on a pasted file. */
export function ConfigPage() {
  const effective = useApi<ConfigAnswer>('/api/admin/config');
  const answer = effective.data;
  const [checkError, setCheckError] = useState<string | undefined>();
  const error = checkError;
  const [text, setText] = useState('');
  const [format, setFormat] = useState<'yaml' | 'json'>('yaml');
  const [check, setCheck] = useState<ConfigCheck | undefined>();
  const validate = async (event: Event) => {
    event.preventDefault();
    setCheck(undefined);
    setCheckError(undefined);
    try {
      setCheck(
        await api<ConfigCheck>('/api/admin/config/validate', { method: 'POST', body: { text, format } }),
      );
    } catch (e) {
      setCheckError(errorText(e));
    }
  };
  // Without the defaults (an older gateway) everything shows as set: nothing is hidden.
  const split = answer && splitConfig(answer.config, answer.defaults ?? {});
  const sections = Object.entries(split?.set ?? {});
  return (
    <section aria-labelledby="config-title">
      <div class="page-head">
        <div>
          <h2 id="config-title">Configuration</h2>
          <p>What your config file sets, apart from the defaults; every secret masked by the gateway.</p>
        </div>
      </div>
      <div class="grid-2 top">
        <div>
          <h3 class="first">Your settings (secrets masked)</h3>
          {effective.failure ? (
            <ErrorState
              failure={effective.failure}
              what="The configuration"
              onRetry={() => void effective.reload()}
            />
          ) : !split ? (
            <LoadingState what="Loading the configuration…" />
          ) : sections.length === 0 ? (
            <EmptyState title="Everything as it comes" icon="config">
              The config sets nothing: every value is its default (below).
            </EmptyState>
          ) : (
            <div class="stack" data-testid="config">
              {sections.map(([key, value]) => (
                <section class="card config-section" key={key} aria-label={`Setting ${key}`}>
                  <h4>{key}</h4>
                  <pre>{JSON.stringify(value, null, 2)}</pre>
                </section>
              ))}
            </div>
          )}
        </div>
        <div>
          <h3 class="first">Validate a config</h3>
          <form class="card" onSubmit={validate}>
            <label for="config-text" class="first">
              Config file (pasted)
            </label>
            <textarea
              id="config-text"
              rows={8}
              spellcheck={false}
              placeholder="server: { port: 8080 }"
              value={text}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            />
            <div class="validate-row">
              <div>
                <label for="config-format">Format</label>
                <select
                  id="config-format"
                  value={format}
                  onChange={(e) => setFormat((e.target as HTMLSelectElement).value as 'yaml' | 'json')}
                >
                  <option value="yaml">YAML</option>
                  <option value="json">JSON</option>
                </select>
              </div>
              <button type="submit">
                <Icon name="check" />
                Validate
              </button>
            </div>
            <div aria-live="polite" data-testid="config-check" class="result">
              {check?.valid === true && (
                <p class="ok">
                  Valid.{check.warnings.length > 0 ? ` Warnings: ${check.warnings.join('; ')}` : ''}
                </p>
              )}
              {check?.valid === false && (
                <p class="error">
                  <strong>{check.error.code}</strong>: {check.error.message}
                </p>
              )}
            </div>
            {error && (
              <p class="error" role="alert">
                {error}
              </p>
            )}
          </form>
        </div>
      </div>
      {split && answer?.defaults !== undefined && (
        <details class="card config-defaults" data-testid="config-defaults">
          <summary>
            Defaults in effect <span class="muted">— every value your config leaves as it comes</span>
          </summary>
          <pre>{JSON.stringify(split.unchanged, null, 2)}</pre>
        </details>
      )}
    </section>
  );
}
