/**
 * @module What to say when a trigger reached no instance: "succeeded: 0 of 0 instances processed" is
 * true, and tells a user nothing. No instance held any of its subjects (an instance holds the subjects of
 * its current state's `interests`, and its own id), which is not an error (exit 0, as `kubectl delete -l`
 * finding nothing is not), but is most often a typo or a state that has moved on: say so, and how to look.
 */
import type { ApiOperation } from './api';
import type { Output } from './output';

/** True for a finished trigger operation that found no instance to offer the trigger to. */
export function reachedNoInstance(operation: ApiOperation): boolean {
  return operation.kind === 'trigger' && operation.status === 'succeeded' && operation.candidates === 0;
}

/** A subject as a shell word: as it is when it is plain, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w:.@/+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The note (on stderr, so `--json` output stays one document) for a trigger that reached no instance. */
export function noteNoCandidates(output: Output, operation: ApiOperation): void {
  if (!reachedNoInstance(operation)) return;
  const subjects = operation.trigger?.subjects ?? [];
  const named = subjects.length === 1 ? `the subject ${subjects[0]}` : `any of the subjects ${subjects.join(', ')}`;
  const trigger = operation.trigger ? `${operation.trigger.name} ` : '';
  output.note(
    output.errorColors.yellow(`No instance holds ${named}: the trigger ${trigger}reached none, and changed nothing.`),
    `  Instances that hold a subject: signalbox instances --subject ${shellWord(subjects[0] ?? '<subject>')}`,
    "  The subjects an instance holds now (its state's interests): signalbox instance <instanceId>",
    '  To one instance by its id: signalbox send-to <instanceId> <triggerName>',
  );
}
