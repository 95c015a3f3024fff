/**
 * @module A semantic diff of two versions of a workflow: states added, removed or changed, and within a
 * changed state which transitions (by id) were added, removed or changed and in what (target, conditions,
 * actions, timer, automatic), and which of its other parts changed (entry and exit conditions and actions,
 * interests, capacity, ...); at the workflow's level, subscriptions by id and every other part. Pure: the
 * facade adds how many live instances each change touches.
 */
import type { StateDefinition, WorkflowDefinition } from '../definition/definition';
import { jsonEqual } from '../model/json-equal';
import type { JsonValue } from '../model/json';

export type VersionChangeKind = 'stateAdded' | 'stateRemoved' | 'stateChanged' | 'workflowChanged';

export interface VersionChange {
  readonly kind: VersionChangeKind;
  /** The state it is about (absent for a change of the workflow's own parts). */
  readonly stateId?: string;
  /** What changed, each as `<part> added|removed|changed`, e.g. `transitions.submit.conditions changed`, `subscriptions.audit added`. */
  readonly details: readonly string[];
}

const same = (a: unknown, b: unknown): boolean => jsonEqual((a ?? null) as JsonValue, (b ?? null) as JsonValue);

function byId<T extends { readonly id: string }>(items: readonly T[] | undefined): Map<string, T> {
  return new Map((items ?? []).map((item) => [item.id, item]));
}

/** `<prefix>.<id> added|removed|changed` for lists of things with ids; `changed` lists `fields` that differ when given. */
function listDiff<T extends { readonly id: string }>(prefix: string, before: readonly T[] | undefined, after: readonly T[] | undefined, fields?: readonly (keyof T & string)[]): string[] {
  const a = byId(before);
  const b = byId(after);
  const details: string[] = [];
  for (const [id, item] of b) {
    const old = a.get(id);
    if (!old) details.push(`${prefix}.${id} added`);
    else if (!same(old, item)) {
      const changed = (fields ?? []).filter((field) => !same(old[field], item[field]));
      if (changed.length) details.push(...changed.map((field) => `${prefix}.${id}.${field} changed`));
      else details.push(`${prefix}.${id} changed`);
    }
  }
  for (const id of a.keys()) if (!b.has(id)) details.push(`${prefix}.${id} removed`);
  if (
    details.length === 0 &&
    !same(
      before?.map((item) => item.id),
      after?.map((item) => item.id),
    )
  )
    details.push(`${prefix} reordered`);
  return details;
}

const TRANSITION_FIELDS = ['targetStateId', 'conditions', 'actions', 'timer', 'automatic', 'otherwise'] as const;

function stateDiff(before: StateDefinition, after: StateDefinition): string[] {
  const details = listDiff('transitions', before.transitions, after.transitions, TRANSITION_FIELDS as unknown as (keyof StateDefinition['transitions'][number] & string)[]);
  const keys = new Set([...Object.keys(before), ...Object.keys(after)].filter((key) => key !== 'transitions'));
  for (const key of [...keys].sort()) {
    const a = (before as Record<string, unknown>)[key];
    const b = (after as Record<string, unknown>)[key];
    if (same(a, b)) continue;
    details.push(`${key} ${a === undefined ? 'added' : b === undefined ? 'removed' : 'changed'}`);
  }
  return details;
}

/** What changed from version `a` to version `b`: states first (in `b`'s order, removed ones after), then the workflow's own parts. */
export function diffWorkflowVersions(a: WorkflowDefinition, b: WorkflowDefinition): VersionChange[] {
  const changes: VersionChange[] = [];
  for (const [stateId, state] of Object.entries(b.states)) {
    const old = a.states[stateId];
    if (!old) changes.push({ kind: 'stateAdded', stateId, details: state.transitions.map((transition) => `transitions.${transition.id} added`) });
    else {
      const details = stateDiff(old, state);
      if (details.length) changes.push({ kind: 'stateChanged', stateId, details });
    }
  }
  for (const stateId of Object.keys(a.states)) if (!(stateId in b.states)) changes.push({ kind: 'stateRemoved', stateId, details: [] });
  const workflowDetails = listDiff('subscriptions', a.subscriptions, b.subscriptions);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((key) => !['states', 'subscriptions', 'displayName', 'description', '$schema'].includes(key)));
  for (const key of [...keys].sort()) {
    const before = (a as Record<string, unknown>)[key];
    const after = (b as Record<string, unknown>)[key];
    if (!same(before, after)) workflowDetails.push(`${key} ${before === undefined ? 'added' : after === undefined ? 'removed' : 'changed'}`);
  }
  if (workflowDetails.length) changes.push({ kind: 'workflowChanged', details: workflowDetails });
  return changes;
}
