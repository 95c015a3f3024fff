// Parses Mermaid diagrams (a JSON array of texts on stdin) with mermaid's own parser and prints, for each,
// what its state diagram database holds, as JSON. Run in a child process: mermaid is ESM only and its
// label sanitiser (DOMPurify) needs a DOM, so a jsdom window is installed before mermaid is first imported.
import { JSDOM } from 'jsdom';

const { window } = new JSDOM('');
globalThis.window = window;
const { default: mermaid } = await import('mermaid');

// Mermaid keeps entity codes (`#quot;`, `#59;`) encoded in its database and decodes them when it draws;
// decode them the same way so labels can be compared with the text they stand for.
const textarea = window.document.createElement('textarea');
function decode(text) {
  const html = text.replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');
  textarea.innerHTML = html;
  return textarea.value;
}

// The elements a label would make when drawn: mermaid draws labels as HTML (inside a foreignObject),
// with its entity placeholders turned back into character references.
const container = window.document.createElement('div');
function elementsIn(text) {
  container.innerHTML = text.replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');
  return [...container.querySelectorAll('*')].map((element) => element.tagName.toLowerCase());
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const states = [...diagram.db.getStates()].map(([id, state]) => ({ id, descriptions: (state.descriptions ?? []).map(decode), classes: state.classes ?? [] }));
    const relations = diagram.db.getRelations().map(({ id1, id2, relationTitle }) => ({ from: id1, to: id2, label: decode(relationTitle ?? '') }));
    const labels = [...[...diagram.db.getStates().values()].flatMap((state) => state.descriptions ?? []), ...diagram.db.getRelations().map(({ relationTitle }) => relationTitle ?? '')];
    results.push({ type: diagram.type, states, relations, elements: labels.flatMap(elementsIn) });
  } catch (error) {
    results.push({ error: error instanceof Error ? error.message : String(error) });
  }
}
process.stdout.write(JSON.stringify(results));
