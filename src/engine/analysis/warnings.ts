/** @module The vocabulary of definition warnings (analyze-definition.ts and the host-configured checks). */
import type { TransitionEdge } from './definition-graph';

export const WarningCode = {
  unreachableState: 'unreachableState',
  noWayToFinish: 'noWayToFinish',
  shadowedTransition: 'shadowedTransition',
  unusedTimer: 'unusedTimer',
  undefinedContextKey: 'undefinedContextKey',
  selfLoopWithoutActions: 'selfLoopWithoutActions',
  startsItself: 'startsItself',
  timerLoop: 'timerLoop',
  /** A transition whose `actors` rule lists no role, group or user: nobody can take it. */
  noActorCanTake: 'noActorCanTake',
  /** Automatic transitions that lead back to their own state through automatic transitions. */
  automaticLoop: 'automaticLoop',
  /** A state its automatic transitions always leave, which has transitions or interests only a waiting instance uses. */
  nothingWaits: 'nothingWaits',
  /** A URL the host's outbound client refuses (outbound-hosts.ts): decided with the host's configuration. */
  hostNotAllowed: 'hostNotAllowed',
  /** A sensitive index on a host without an index key (index-key.ts): decided with the host's configuration. */
  sensitiveIndexUnkeyed: 'sensitiveIndexUnkeyed',
} as const;
export type WarningCode = (typeof WarningCode)[keyof typeof WarningCode];

export interface DefinitionWarning {
  /** JSON path in the definition, as validation errors use. */
  readonly path: string;
  readonly code: WarningCode;
  readonly message: string;
}

/** The JSON path of a transition, as a warning names it. */
export function pathOf(edge: TransitionEdge): (string | number)[] {
  return ['states', edge.stateId, 'transitions', edge.index];
}
