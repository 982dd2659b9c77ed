import { Icon } from '../ui/icons.js';

/** A tool result in MCP's CallToolResult shape. */
export interface ToolResult {
  content?: {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
    resource?: { uri?: string; text?: string };
  }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** A tool's result: its text, images and resources as such, its structured content as JSON. */
export function ResultView(props: { result: ToolResult }) {
  const { content = [], structuredContent } = props.result;
  return (
    <section aria-label="Result" data-testid="result">
      <h3 class={props.result.isError ? 'error-title' : 'ok'}>
        <Icon name={props.result.isError ? 'alert' : 'check'} />
        {props.result.isError ? 'Result (the tool reported an error)' : 'Result'}
      </h3>
      {structuredContent !== undefined && (
        <>
          <h4>Structured</h4>
          <pre>{JSON.stringify(structuredContent, null, 2)}</pre>
        </>
      )}
      {content.map((block, i) => {
        const key = `${i}`;
        if (block.type === 'text') return <pre key={key}>{block.text}</pre>;
        if (
          block.type === 'image' &&
          block.data &&
          /^image\/(png|jpeg|gif|webp)$/.test(block.mimeType ?? '')
        ) {
          return (
            <img key={key} alt={`Result ${i + 1}`} src={`data:${block.mimeType};base64,${block.data}`} />
          );
        }
        if (block.type === 'resource' || block.type === 'resource_link') {
          return (
            <pre key={key}>{`resource ${block.resource?.uri ?? ''}\n${block.resource?.text ?? ''}`}</pre>
          );
        }
        return <pre key={key}>{JSON.stringify(block, null, 2)}</pre>;
      })}
    </section>
  );
}
