import { useEffect, useState } from 'preact/hooks';
import { api, type CodeApi, type CodeResult, errorText, useApi } from '../api.js';
import { Icon } from '../ui/icons.js';
import { LoadingState } from '../ui/states.js';

const STARTER = `// await tools.call(id, args), tools.search(query), tools.describe(id)
const found = await tools.search('echo');
return found.tools.map((t) => t.id);`;

/** Code mode: a program run by `execute_code` in the caller's scope, with its value, logs and tool calls. */
export function CodePage() {
  const [code, setCode] = useState(STARTER);
  const [Editor, setEditor] = useState<typeof import('./code-editor.js').CodeEditor | undefined>();
  // Without it the editor still works: a failure is said quietly where the declarations would be.
  const declared = useApi<CodeApi>('/api/admin/code/api');
  const declarations = declared.data?.declarations;
  useEffect(() => {
    // Loaded on demand: CodeMirror is most of the console's weight and only this page needs it.
    import('./code-editor.js').then(
      (module) => setEditor(() => module.CodeEditor),
      () => {},
    );
  }, []);
  const [result, setResult] = useState<CodeResult | undefined>();
  const [error, setError] = useState<string | undefined>();
  const run = async (event: Event) => {
    event.preventDefault();
    setResult(undefined);
    setError(undefined);
    try {
      setResult(
        await api<CodeResult>('/api/admin/code', { method: 'POST', body: { code, language: 'typescript' } }),
      );
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <section aria-labelledby="code-title">
      <div class="page-head">
        <div>
          <h2 id="code-title">Code mode</h2>
          <p>A program run by execute_code in your scope: its value, its logs and every tool call it made.</p>
        </div>
      </div>
      <div class="grid-2 top">
        <form class="card" onSubmit={run}>
          <p id="code-label">
            <strong>Program</strong> <span class="muted">(TypeScript, body of an async function)</span>
          </p>
          {Editor ? (
            <Editor value={code} label="Program" onChange={setCode} />
          ) : (
            <LoadingState what="Loading the editor…" />
          )}
          <p class="run-row">
            <button type="submit">
              <Icon name="play" />
              Run program
            </button>
          </p>
          <div aria-live="polite">
            {error && (
              <p class="error" role="alert">
                {error}
              </p>
            )}
            {result && (
              <div data-testid="code-result" class="result">
                <h3>Value</h3>
                <pre>{JSON.stringify(result.value, null, 2)}</pre>
                <h3>Logs</h3>
                {result.logs.length === 0 ? (
                  <p class="muted">No logs.</p>
                ) : (
                  <pre>{result.logs.map((l) => JSON.stringify(l)).join('\n')}</pre>
                )}
                <h3>Tool calls</h3>
                {result.toolCalls.length === 0 ? (
                  <p class="muted">No tool calls.</p>
                ) : (
                  <pre>
                    {result.toolCalls
                      .map((c) => `${c.tool_id} ${c.ok ? 'ok' : c.code} ${c.ms} ms`)
                      .join('\n')}
                  </pre>
                )}
              </div>
            )}
          </div>
        </form>
        <div>
          {declarations !== undefined ? (
            <details class="card">
              <summary>code_api: the declarations of `tools`</summary>
              <pre
                class="scroll-box"
                data-testid="code-api"
                // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
                tabIndex={0}
              >
                {declarations}
              </pre>
            </details>
          ) : declared.error ? (
            <p class="muted">The declarations of `tools` could not be read ({declared.error}).</p>
          ) : (
            <LoadingState what="Loading the declarations…" />
          )}
        </div>
      </div>
    </section>
  );
}
