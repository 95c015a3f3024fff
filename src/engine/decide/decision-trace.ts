/**
 * @module Decision traces: the conditions a decision evaluated, in order, so that every
 * `exitBlocked`, `noTransition` and `entryBlocked` says why. A trace travels in the result (and so in the
 * operation record written anyway), never in the instance's own record.
 */
import { redactSecrets } from '../model/redaction';

/** `skipped`: not evaluated because an earlier condition of the same list (or composite) decided it. */
export type TraceResult = true | false | 'error' | 'skipped';

export interface TraceEntry {
  /** The condition's JSON path in the definition, e.g. `states.draft.transitions[1].conditions[0]`. */
  readonly path: string;
  readonly type: string;
  readonly result: TraceResult;
  /** A short explanation where it helps: an expression's value, an external service's answer, an error. */
  readonly detail?: string;
}

/** At most this many characters of a detail are kept (a trace is for reading, not for data). */
export const MAX_TRACE_DETAIL_LENGTH = 200;

/** The detail as traced: secrets in URLs redacted (before cutting, so no half URL escapes), then cut. */
export function shortDetail(text: string): string {
  const detail = redactSecrets(text);
  return detail.length > MAX_TRACE_DETAIL_LENGTH ? `${detail.slice(0, MAX_TRACE_DETAIL_LENGTH - 1)}…` : detail;
}

/** The path of the conditions list of a definition's state part (`exitConditions`, `entryConditions`). */
export function statePath(stateId: string, part: string): string {
  return `states${/^[A-Za-z_$][\w$]*$/.test(stateId) ? `.${stateId}` : `[${JSON.stringify(stateId)}]`}.${part}`;
}
