import { javascript } from '@codemirror/lang-javascript';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

/**
 * CodeMirror 6 with TypeScript highlighting. Its own chunk: the Code page imports this module only
 * when it is opened, so the editor's weight is never part of the console's first load.
 */
export function CodeEditor(props: { value: string; label: string; onChange: (value: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  useEffect(() => {
    if (!host.current) return undefined;
    const view = new EditorView({
      doc: props.value,
      parent: host.current,
      extensions: [
        basicSetup,
        // The page's CSP admits the editor's <style> element by this load's nonce.
        EditorView.cspNonce.of(
          document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '',
        ),
        javascript({ typescript: true }),
        EditorView.contentAttributes.of({ 'aria-label': props.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange.current(update.state.doc.toString());
        }),
      ],
    });
    return () => view.destroy();
    // The editor owns its text after mount; later `value` props are not pushed back into it.
  }, []);
  return <div class="editor" ref={host} />;
}
