import { useEffect, useState } from 'preact/hooks';
import { api, type CodeApi, type CodeResult, errorText, useApi } from '../api.js';

const STARTER = `// await tools.call(id, args), tools.search(query), tools.describe(id)
const found = await tools.search('echo');
return found.tools.map((t) => t.id);`;

/** Code mode: a program run by `execute_code` in the caller's scope, with its value, logs and tool calls. */
export function CodePage() {
  const [code, setCode] = useState(STARTER);
  const [Editor, setEditor] = useState<typeof import('./code-editor.js').CodeEditor | undefined>();
  // Without it the editor still works: a failure here is not worth a message.
  const declarations = useApi<CodeApi>('/api/admin/code/api').data?.declarations;
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
      <h2 id="code-title">Code mode</h2>
      <form onSubmit={run}>
        <p id="code-label">
          <strong>Program</strong> (TypeScript, body of an async function)
        </p>
        {Editor ? <Editor value={code} label="Program" onChange={setCode} /> : <p>Loading the editor…</p>}
        <p>
          <button type="submit">Run program</button>
        </p>
      </form>
      {declarations !== undefined && (
        <details>
          <summary>code_api: the declarations of `tools`</summary>
          <pre data-testid="code-api">{declarations}</pre>
        </details>
      )}
      <div aria-live="polite">
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {result && (
          <div data-testid="code-result">
            <h3>Value</h3>
            <pre>{JSON.stringify(result.value, null, 2)}</pre>
            <h3>Logs</h3>
            <pre>{result.logs.map((l) => JSON.stringify(l)).join('\n')}</pre>
            <h3>Tool calls</h3>
            <pre>
              {result.toolCalls.map((c) => `${c.tool_id} ${c.ok ? 'ok' : c.code} ${c.ms} ms`).join('\n')}
            </pre>
          </div>
        )}
      </div>
    </section>
  );
}
