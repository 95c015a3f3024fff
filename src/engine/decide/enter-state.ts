/**
 * @module Entering a state, written once for creation, transitions and recovery: the entry conditions
 * (checked by the caller at its own step, since a false one blocks a transition but faults a creation),
 * then the status, the entry actions, the interests recomputed from the context as it then stands, and
 * the outbox rows of everything the change raised, and the state's timers armed (timers.ts).
 */
import { isFinalState } from '../definition/definition';
import { statePath } from './decision-trace';
import { budgetFault, budgetShare, depthFault, isDueAtOnce } from './causal-budget';
import { actorOfCause, causeKey, followUpActor, followUpDepth, type Cause } from './decision';
import { InstanceStatus } from '../model/enums';
import { computeInterests } from './interests';
import { MAX_OUTBOX_ROWS_PER_CHANGE, OutboxKind, type OutboxRow } from '../model/outbox';
import type { ArmedTimer } from '../model/instance';
import type { Draft } from './draft';
import { armTimers, timerOutboxRows } from './timers';
import { derivedChildId } from '../steps/actions/start-instance';
import { raisedTriggerId } from '../model/trigger-ids';
import { systemActor } from '../model/actor';

/** What entering a state produced: the parts of the next instance it decides, and the rows to write. */
export interface EnteredState {
  readonly stateId: string;
  readonly status: InstanceStatus;
  readonly interests: readonly string[];
  /** Which entry into the state this is (the sequence of the history entry that records it). */
  readonly stateEntry: number;
  /** The state's timers, armed from the moment of entry. */
  readonly timers: readonly ArmedTimer[];
  /** Raised triggers, then one `timer` row per armed timer. */
  readonly outbox: readonly OutboxRow[];
}

function stateOf(draft: Draft, stateId: string) {
  const state = Object.hasOwn(draft.definition.states, stateId) ? draft.definition.states[stateId] : undefined;
  if (!state) throw new Error(`state "${stateId}" is not in version ${draft.workflowVersion} of workflow "${draft.definition.id}"`);
  return state;
}

/** Index of the first false entry condition of `stateId`, or -1 when it may be entered. Throws StepFailure. */
export function entryBlockedAt(draft: Draft, stateId: string): Promise<number> {
  return draft.firstFalse(stateOf(draft, stateId).entryConditions, `entry condition of state "${stateId}"`, statePath(stateId, 'entryConditions'));
}

/**
 * Why entering `stateId` was refused, for a fault: the false condition by its index, type and id, and
 * what it saw (its trace detail, else its expression), so the message says which check to look at.
 * `stateName` is how the message names the state ("the initial state \"a\"", "state \"a\"").
 */
export function entryBlockedMessage(draft: Draft, stateId: string, index: number, stateName: string): string {
  const step = stateOf(draft, stateId).entryConditions[index];
  const path = `${statePath(stateId, 'entryConditions')}[${index}]`;
  const detail = draft.trace.find((entry) => entry.path === path)?.detail ?? (step && typeof step.expression === 'string' ? step.expression : undefined);
  const described = step ? ` (${step.type}${typeof step.id === 'string' ? ` "${step.id}"` : ''})` : '';
  return `entry condition [${index}]${described} of ${stateName} is false${detail ? `: ${detail}` : ''}`;
}

/**
 * Moves the draft into `stateId` (its entry conditions already passed), runs the entry actions, arms the
 * state's timers and collects the change's outbox. `stateEntry` is the sequence number of the history
 * entry the change writes (it tells this entry from earlier ones, so their timers are stale). Throws (a
 * StepFailure, a bad `at`, a limit) to fault the instance. `enteredAt` (default: now) is when `after`
 * timers start counting; a creation passes its `createdAt`, so a timer is due exactly that long after it.
 */
export async function enterState(draft: Draft, cause: Cause, stateId: string, stateEntry: number, enteredAt: Date = draft.effects.now()): Promise<EnteredState> {
  const state = stateOf(draft, stateId);
  draft.stateId = stateId;
  draft.status = isFinalState(state) ? InstanceStatus.complete : InstanceStatus.waiting;
  await draft.runActions(state.entryActions, `entry action of state "${stateId}"`, statePath(stateId, 'entryActions'));
  const interests = await computeInterests(draft.instanceId, state, draft.scope(), draft.registry, draft.effects);
  const armed = await armTimers(draft, state, enteredAt, followUpDepth(cause), cause);
  // The change's causal budget, shared among all its follow-up work (causal-budget.ts); a change that
  // ends its instance keeps a share for the notification its parent (if any) gets.
  const pieces = draft.raised.length + draft.started.length + armed.filter(isDueAtOnce).length + (isFinalState(state) ? 1 : 0);
  const share = budgetShare(cause, pieces);
  const armedBy = actorOfCause(cause);
  const timers = armed.map((timer) => ({ ...timer, ...(isDueAtOnce(timer) ? { causalBudget: share } : {}), ...(armedBy ? { armedBy: systemActor(armedBy).cause ?? armedBy } : {}) }));
  const outbox = [
    ...outboxRows(draft, cause, share, pieces),
    ...timerOutboxRows({ id: draft.instanceId, ...(draft.incarnation !== undefined ? { incarnation: draft.incarnation } : {}) }, stateEntry, timers),
  ];
  if (outbox.length > MAX_OUTBOX_ROWS_PER_CHANGE) {
    throw new Error(`one change may raise triggers and arm timers for at most ${MAX_OUTBOX_ROWS_PER_CHANGE} rows, not ${outbox.length}`);
  }
  const dueAtOnce = timers.find(isDueAtOnce);
  const timerFault = dueAtOnce && budgetFault(`the timer of transition "${dueAtOnce.transitionId}" (due at once)`, share, pieces, cause);
  if (timerFault) throw new Error(timerFault);
  return { stateId, status: draft.status, interests, stateEntry, timers, outbox };
}

/** The rows for what the draft raised and the children it starts, with deterministic ids; past the causal depth or row limits, a fault. */
export function outboxRows(draft: Draft, cause: Cause, share: number, pieces: number): OutboxRow[] {
  return [...triggerRows(draft, cause, share, pieces), ...childRows(draft, cause, share, pieces)];
}

/** `startInstance` rows: the child's id as rendered, or derived from the parent, the cause and the action. */
function childRows(draft: Draft, cause: Cause, causalBudget: number, pieces: number): OutboxRow[] {
  if (draft.started.length === 0) return [];
  if (draft.raised.length + draft.started.length > MAX_OUTBOX_ROWS_PER_CHANGE) {
    throw new Error(`one change may raise triggers and start instances ${MAX_OUTBOX_ROWS_PER_CHANGE} times at most, not ${draft.raised.length + draft.started.length}`);
  }
  const causalDepth = followUpDepth(cause);
  const work = `starting an instance of workflow "${draft.started[0]!.child.workflowId}"`;
  const fault = depthFault(work, causalDepth, cause) ?? budgetFault(work, causalBudget, pieces, cause);
  if (fault) throw new Error(fault);
  const key = causeKey(cause);
  return draft.started.map(({ child, location }, index) => {
    const instanceId = child.instanceId ?? derivedChildId(draft.instanceId, key, location, index, draft.incarnation);
    const parent = {
      instanceId: draft.instanceId,
      ...(draft.incarnation !== undefined ? { incarnation: draft.incarnation } : {}),
      ...(child.returnContextItems ? { returnContextItems: [...child.returnContextItems] } : {}),
    };
    return {
      id: `s.${instanceId}`,
      kind: OutboxKind.startInstance,
      payload: { workflowId: child.workflowId, instanceId, context: child.context, parent, causalDepth, causalBudget, ...followUpActor(cause) },
    };
  });
}

function triggerRows(draft: Draft, cause: Cause, causalBudget: number, pieces: number): OutboxRow[] {
  if (draft.raised.length === 0) return [];
  const causalDepth = followUpDepth(cause);
  const work = `raising trigger "${draft.raised[0]!.name}"`;
  const fault = depthFault(work, causalDepth, cause) ?? budgetFault(work, causalBudget, pieces, cause);
  if (fault) throw new Error(fault);
  if (draft.raised.length > MAX_OUTBOX_ROWS_PER_CHANGE) {
    throw new Error(`one change may raise at most ${MAX_OUTBOX_ROWS_PER_CHANGE} triggers, not ${draft.raised.length}`);
  }
  const key = causeKey(cause);
  return draft.raised.map((trigger, index) => {
    const id = raisedTriggerId(draft.instanceId, key, index, draft.incarnation);
    return { id, kind: OutboxKind.trigger, payload: { ...trigger, subjects: [...trigger.subjects], id, causalDepth, causalBudget, raisedBy: draft.instanceId, ...followUpActor(cause) } };
  });
}
