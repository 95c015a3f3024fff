/**
 * @module A Mermaid diagram rendered into the page, with a text alternative for screen readers. On a
 * wide frame it is laid out left to right, so it spreads along the width it has instead of standing as
 * a narrow column; on a narrow one (a phone) top to bottom.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { renderMermaid } from '../lib/render-mermaid';

/** Frames at least this wide (CSS px) get a left-to-right layout. */
const WIDE_FRAME = 720;

/** The diagram text with `direction LR` added after its header, unless it names a direction itself. */
export function laidOutForWidth(text: string, frameWidth: number): string {
  if (frameWidth < WIDE_FRAME || /^\s*direction\s/m.test(text)) return text;
  return text.replace(/^(\s*stateDiagram(?:-v2)?[^\n]*\n)/, '$1    direction LR\n');
}

export function StateDiagram({ text, label }: { text: string; label: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    setError(undefined);
    renderMermaid(laidOutForWidth(text, container.current?.clientWidth ?? 0)).then(
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
