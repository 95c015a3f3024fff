/** @module A Mermaid diagram rendered into the page, with a text alternative for screen readers. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { renderMermaid } from '../lib/render-mermaid';

export function StateDiagram({ text, label }: { text: string; label: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    setError(undefined);
    renderMermaid(text).then(
      (svg) => {
        if (current && container.current) container.current.innerHTML = svg;
      },
      (failure: unknown) => current && setError(failure instanceof Error ? failure.message : String(failure)),
    );
    return () => {
      current = false;
    };
  }, [text]);
  return (
    <figure class="diagram">
      {error ? (
        <div class="problem" role="alert">
          <p class="problem-title">The diagram could not be drawn</p>
          <p class="problem-detail">{error}</p>
          <pre class="diagram-source">{text}</pre>
        </div>
      ) : (
        <div class="diagram-canvas" ref={container} role="img" aria-label={label} data-testid="diagram" />
      )}
      <figcaption class="visually-hidden">{label}</figcaption>
    </figure>
  );
}
