import { useState } from 'preact/hooks';
import { type ToolFormats as Formats, useApi } from '../api.js';
import { ErrorState, LoadingState } from '../ui/states.js';

const LABELS: Record<string, string> = {
  mcp: 'MCP',
  openai: 'OpenAI (Chat Completions)',
  'openai-responses': 'OpenAI (Responses)',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
  a2a: 'A2A skill',
  typescript: 'TypeScript (code mode)',
};

/** The tool in every export format, one at a time, with what the format could not carry. */
export function ToolFormats(props: { id: string }) {
  const { data, failure } = useApi<Formats>(`/api/admin/tools/${encodeURIComponent(props.id)}/formats`);
  const formats = data?.formats;
  const [format, setFormat] = useState('mcp');
  if (failure) return <ErrorState failure={failure} what="The export formats" />;
  if (!formats) return <LoadingState what="Loading formats…" />;
  const shown = formats[format];
  return (
    <div>
      <label for="format">Format</label>
      <select id="format" value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value)}>
        {Object.keys(formats).map((name) => (
          <option key={name} value={name}>
            {LABELS[name] ?? name}
          </option>
        ))}
      </select>
      <pre data-testid="format-value">
        {typeof shown?.value === 'string' ? shown.value : JSON.stringify(shown?.value, null, 2)}
      </pre>
      {(shown?.warnings ?? []).length > 0 && (
        <ul aria-label="Lost in this format">
          {shown?.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
