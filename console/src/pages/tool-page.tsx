import { useState } from 'preact/hooks';
import { ApiError, api, useApi } from '../api.js';
import { Icon } from '../ui/icons.js';
import { ErrorState, LoadingState } from '../ui/states.js';
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
    /** The tool's MCP App: its `ui://` resource and who may see the tool. */
    app?: { resourceUri?: string; visibility?: string[] };
  };
  examples?: unknown[];
}

/** One tool: what it is, its schemas and examples, and Try it (form or raw JSON). */
export function ToolPage(props: { id: string }) {
  const { data: described, failure: loadError } = useApi<Described>(
    `/api/tools/${encodeURIComponent(props.id)}?detail=full`,
  );
  const [args, setArgs] = useState<Record<string, unknown>>({});
  const [raw, setRaw] = useState<string | undefined>();
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<ToolResult | undefined>();
  const [failure, setFailure] = useState<ApiError | undefined>();

  if (loadError) return <ErrorState failure={loadError} what={`The tool ${props.id}`} />;
  if (!described) return <LoadingState what="Loading the tool…" />;
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

  const annotations = Object.entries(tool.annotations ?? {});
  return (
    <article aria-labelledby="tool-title">
      <a class="back" href="#/catalog">
        <Icon name="back" /> Catalog
      </a>
      <div class="page-head">
        <div>
          <h2 id="tool-title" class="tool-title">
            {tool.title ? `${tool.title} (${tool.id})` : tool.id}
          </h2>
          <p class="tool-desc">{tool.description}</p>
          {tool.app && <AppLine app={tool.app} />}
          {(tool.tags ?? []).length > 0 && (
            <p class="chips">
              {(tool.tags ?? []).map((tag) => (
                <span class="tag" key={tag}>
                  {tag}
                </span>
              ))}
            </p>
          )}
        </div>
      </div>
      <div class="grid-2">
        <div class="stack">
          <form class="card" onSubmit={run} aria-label="Try it">
            <h3>Try it</h3>
            <fieldset>
              <legend>Arguments</legend>
              <label class="raw-toggle">
                <input
                  type="checkbox"
                  checked={raw !== undefined}
                  onChange={(e) =>
                    setRaw((e.target as HTMLInputElement).checked ? JSON.stringify(args, null, 2) : undefined)
                  }
                />
                Raw JSON
              </label>
              {raw === undefined ? (
                <div class="form-fields">
                  <SchemaForm schema={tool.inputSchema} value={args} onChange={setArgs} />
                </div>
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
            <p class="run-row">
              <button type="submit" disabled={running}>
                <Icon name="play" />
                {running ? 'Running…' : 'Run'}
              </button>
            </p>
            <div aria-live="polite" class="result">
              {failure && (
                <div class="error" role="alert" data-testid="run-error">
                  <strong>{failure.code}</strong>: {failure.message}
                </div>
              )}
              {result && <ResultView result={result} />}
            </div>
          </form>
        </div>
        <div class="stack">
          <section class="card" aria-labelledby="annotations-title">
            <h3 id="annotations-title">Annotations</h3>
            {annotations.length === 0 ? (
              <p class="muted">No annotations: clients assume nothing about this tool's effects.</p>
            ) : (
              <div class="chips">
                {annotations.map(([key, value]) => (
                  <span class="badge plain" key={key}>
                    {key}: {JSON.stringify(value)}
                  </span>
                ))}
              </div>
            )}
          </section>
          <details class="card">
            <summary>Input schema</summary>
            <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
          </details>
          {tool.outputSchema !== undefined && (
            <details class="card">
              <summary>Output schema</summary>
              <pre>{JSON.stringify(tool.outputSchema, null, 2)}</pre>
            </details>
          )}
          {(described.examples ?? []).length > 0 && (
            <details class="card">
              <summary>Examples</summary>
              <pre>{JSON.stringify(described.examples, null, 2)}</pre>
            </details>
          )}
          <details class="card">
            <summary>In every format</summary>
            <ToolFormats id={tool.id} />
          </details>
        </div>
      </div>
    </article>
  );
}

/** That the tool has an MCP App (a UI hosts render), and whether only the app may call it. */
function AppLine(props: { app: NonNullable<Described['tool']['app']> }) {
  const { resourceUri, visibility } = props.app;
  const appOnly = visibility !== undefined && !visibility.includes('model');
  return (
    <p class="chips" data-testid="tool-app">
      <span class="badge plain">MCP App</span>
      {resourceUri && <code>{resourceUri}</code>}
      {appOnly && (
        <span class="badge plain" title="Hidden from tools/list and search; the app calls it by name">
          app-only
        </span>
      )}
    </p>
  );
}
