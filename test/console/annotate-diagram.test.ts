/** Counts drawn onto the server's diagram text: found by the server's state declarations, only added. */
import { annotateDiagram, diagramStateIds } from '../../console/src/lib/annotate-diagram';

// The shape of `GET /api/workflows/{id}/diagram`: states under generated aliases, labelled by display name.
const diagram = `stateDiagram-v2
    state "Waiting for submission" as s0
    state "Waiting for approval" as s1
    state "Say #quot;hi#quot; #59; bye" as s2
    state "Done" as s3
    state "Done" as s4
    [*] --> s0
    s0 --> s1: Submit
    s1 --> s3: Approve
    s3 --> [*]
`;
const states = {
  'waiting-for-submission': { displayName: 'Waiting for submission' },
  'waiting-for-approval': { displayName: 'Waiting for approval' },
  quoted: { displayName: 'Say "hi" ; bye' },
  'done-1': { displayName: 'Done' },
  'done-2': { displayName: 'Done' },
};

describe('diagramStateIds', () => {
  it('maps each state to its alias by label, decoding entities, in definition order for shared labels', () => {
    expect(Object.fromEntries(diagramStateIds(diagram, states))).toEqual({
      'waiting-for-submission': 's0',
      'waiting-for-approval': 's1',
      quoted: 's2',
      'done-1': 's3',
      'done-2': 's4',
    });
  });

  it('uses a state id the diagram names directly, and skips states it does not draw', () => {
    const direct = 'stateDiagram-v2\n    [*] --> open\n    open --> closed: Close\n';
    expect(Object.fromEntries(diagramStateIds(direct, { open: {}, closed: { displayName: 'Closed' }, missing: {} }))).toEqual({ open: 'open', closed: 'closed' });
  });
});

describe('annotateDiagram', () => {
  it('adds a description line per state with instances, in a fixed status order, and keeps every original line', () => {
    const annotated = annotateDiagram(diagram, states, {
      'waiting-for-submission': { faulted: 1, waiting: 3 },
      'waiting-for-approval': { waiting: 2 },
    });
    expect(annotated.startsWith(diagram.trimEnd())).toBe(true);
    const added = annotated
      .slice(diagram.trimEnd().length)
      .trim()
      .split('\n')
      .map((line) => line.trim());
    expect(added).toEqual(['s0 : 3 waiting · 1 faulted', 's1 : 2 waiting', 'classDef signalboxHasFaulted stroke:#b00020,stroke-width:3px', 'class s0 signalboxHasFaulted']);
  });

  it('leaves the diagram alone when no state has instances', () => {
    expect(annotateDiagram(diagram, states, {})).toBe(diagram);
    expect(annotateDiagram(diagram, states, { 'waiting-for-approval': {} })).toBe(diagram);
  });

  it('ignores counts for states the diagram does not draw', () => {
    expect(annotateDiagram(diagram, states, { 'retired-state': { waiting: 4 } })).toBe(diagram);
  });
});

describe('with the server diagram of names that hold markup, emoji and control characters', () => {
  it('finds every state by its label as the server escapes it', () => {
    // Required here rather than imported: the console tests otherwise load nothing of the engine.
    const { buildDefinitionGraph, mermaidStateDiagram } = require('../../src/engine/analysis') as typeof import('../../src/engine/analysis');
    const { validateDefinition } = require('../../src/engine/analysis') as typeof import('../../src/engine/analysis');
    const hostileStates = {
      a: { displayName: 'Start <form><input name="x"></form> 🚀 & "quoted"', transitions: [{ id: 'go', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Go' }] }] },
      b: { displayName: 'Done\u001b]52;c;eA==\u0007\ttoo' },
    };
    const definition = validateDefinition({ id: 'hostile', displayName: 'Hostile', initialStateId: 'a', states: hostileStates });
    const text = mermaidStateDiagram(buildDefinitionGraph(definition));
    expect(Object.fromEntries(diagramStateIds(text, hostileStates))).toEqual({ a: 's0', b: 's1' });
  });
});
