/**
 * @module Mermaid text to SVG, in the browser. Mermaid is bundled with the console (no CDN) and loaded
 * on the first diagram, so pages without one stay small. `securityLevel: 'strict'` sanitises labels,
 * which come from workflow definitions.
 */
let loaded: Promise<typeof import('mermaid').default> | undefined;
let renders = 0;

function loadMermaid() {
  loaded ??= import('mermaid').then(({ default: mermaid }) => {
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: 'neutral',
      fontFamily: 'system-ui, sans-serif',
      // Room between states and between ranks, so a self-loop's label (a timer's) does not sit on a
      // neighbouring edge's label: Mermaid's default 50 px put "timer: after PT16H" over "Approve".
      state: { nodeSpacing: 90, rankSpacing: 80 },
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
