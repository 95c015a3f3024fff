/** The diagram's layout follows its frame: left to right when wide, as drawn by the server when narrow. */
import { laidOutForWidth } from '../../console/src/components/state-diagram';

const diagram = 'stateDiagram-v2\n    state "Draft" as s0\n    [*] --> s0\n';

it('lays a diagram out left to right in a wide frame', () => {
  expect(laidOutForWidth(diagram, 1200)).toBe('stateDiagram-v2\n    direction LR\n    state "Draft" as s0\n    [*] --> s0\n');
});

it('keeps the top-to-bottom layout in a narrow frame (a phone)', () => {
  expect(laidOutForWidth(diagram, 358)).toBe(diagram);
});

it('keeps a direction the diagram names itself', () => {
  const named = 'stateDiagram-v2\n    direction TB\n    [*] --> s0\n';
  expect(laidOutForWidth(named, 1200)).toBe(named);
});
