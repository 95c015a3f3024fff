/**
 * @module Mermaid text to SVG, in the browser. Mermaid is bundled with the console (no CDN) and loaded
 * on the first diagram, so pages without one stay small. Labels come from workflow definitions: the
 * server escapes every one (mermaidLabel), and mermaid is told to keep no element but text formatting.
 */
let loaded: Promise<typeof import('mermaid').default> | undefined;
let renders = 0;

function loadMermaid() {
  loaded ??= import('mermaid').then(({ default: mermaid }) => {
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      // Labels reach the page as HTML; `strict` removes scripts only, and keeps links, forms and inputs. The
      // server writes every label as entity codes (no markup at all); should one still hold a tag, only
      // text formatting survives.
      dompurifyConfig: { ALLOWED_TAGS: ['b', 'strong', 'i', 'em', 'br', 'span', 'p', 'div'], ALLOWED_ATTR: ['class'] },
      theme: 'neutral',
      fontFamily: 'system-ui, sans-serif',
      // Room between states and between ranks, so a self-loop's label (a timer's) does not sit on a
      // neighbouring edge's label: Mermaid's default 50 px put "timer: after PT16H" over "Approve", and 80
      // between ranks put a state's self-loop "Edit" on the "Edit" edge arriving beside it (data-catalog-item).
      state: { nodeSpacing: 90, rankSpacing: 140 },
    });
    return mermaid;
  });
  return loaded;
}

export async function renderMermaid(text: string): Promise<string> {
  const mermaid = await loadMermaid();
  const { svg } = await mermaid.render(`signalbox-diagram-${++renders}`, text);
  return svg;
}
