import { useState } from 'preact/hooks';
import { ApiError, api, useApi } from '../api.js';
import { ResultView, type ToolResult } from './result-view.js';
import { type FieldSchema, SchemaForm } from './schema-form.js';
import { ToolFormats } from './tool-formats.js';

interface Described {
  tool: {
    id: string;
    title?: string;
    description: string;
    inputSchema: FieldSchema;
    outputSchema?: unknown;
    annotations?: Record<string, unknown>;
    tags?: string[];
    metadata?: unknown;
  };
  examples?: unknown[];
}

/** One tool: what it is, its schemas and examples, and Try it (form or raw JSON). */
export function ToolPage(props: { id: string }) {
  const { data: described, error: loadError } = useApi<Described>(
    `/api/tools/${encodeURIComponent(props.id)}?detail=full`,
  );
  const [args, setArgs] = useState<Record<string, unknown>>({});
  const [raw, setRaw] = useState<string | undefined>();
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<ToolResult | undefined>();
  const [failure, setFailure] = useState<ApiError | undefined>();

  if (loadError)
    return (
      <p class="error" role="alert">
        {loadError}
      </p>
    );
  if (!described) return <p>Loading…</p>;
  const { tool } = described;

  const run = async (event: Event) => {
    event.preventDefault();
    setRunning(true);
    setResult(undefined);
    setFailure(undefined);
    try {
      const body = raw === undefined ? args : (JSON.parse(raw) as unknown);
      const answer = await api<{ result: ToolResult }>(`/api/tools/${encodeURIComponent(tool.id)}`, {
        method: 'POST',
        body,
      });
      setResult(answer.result);
    } catch (error) {
      setFailure(
        error instanceof ApiError ? error : new ApiError(0, 'invalid_request', `Not JSON: ${String(error)}`),
      );
    } finally {
      setRunning(false);
    }
  };

  return (
    <article aria-labelledby="tool-title">
      <p>
        <a href="#/catalog">← Catalog</a>
      </p>
      <h2 id="tool-title">{tool.title ? `${tool.title} (${tool.id})` : tool.id}</h2>
      <p>{tool.description}</p>
      {(tool.tags ?? []).length > 0 && <p>Tags: {(tool.tags ?? []).join(', ')}</p>}
      <h3>Annotations</h3>
      <pre>{JSON.stringify(tool.annotations ?? {}, null, 2)}</pre>
      <details>
        <summary>Input schema</summary>
        <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
      </details>
      {tool.outputSchema !== undefined && (
        <details>
          <summary>Output schema</summary>
          <pre>{JSON.stringify(tool.outputSchema, null, 2)}</pre>
        </details>
      )}
      {(described.examples ?? []).length > 0 && (
        <details>
          <summary>Examples</summary>
          <pre>{JSON.stringify(described.examples, null, 2)}</pre>
        </details>
      )}
      <details>
        <summary>In every format</summary>
        <ToolFormats id={tool.id} />
      </details>
      <h3>Try it</h3>
      <form onSubmit={run} aria-label="Try it">
        <fieldset>
          <legend>Arguments</legend>
          <label>
            <input
              type="checkbox"
              checked={raw !== undefined}
              onChange={(e) =>
                setRaw((e.target as HTMLInputElement).checked ? JSON.stringify(args, null, 2) : undefined)
              }
            />{' '}
            Raw JSON
          </label>
          {raw === undefined ? (
            <SchemaForm schema={tool.inputSchema} value={args} onChange={setArgs} />
          ) : (
            <>
              <label for="raw-args">Arguments (JSON)</label>
              <textarea
                id="raw-args"
                rows={8}
                value={raw}
                onInput={(e) => setRaw((e.target as HTMLTextAreaElement).value)}
              />
            </>
          )}
        </fieldset>
        <p>
          <button type="submit" disabled={running}>
            {running ? 'Running…' : 'Run'}
          </button>
        </p>
      </form>
      <div aria-live="polite">
        {failure && (
          <div class="error" role="alert" data-testid="run-error">
            <strong>{failure.code}</strong>: {failure.message}
          </div>
        )}
        {result && <ResultView result={result} />}
      </div>
    </article>
  );
}
