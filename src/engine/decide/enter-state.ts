/**
 * @module Entering a state, written once for creation, transitions, recovery and migration: the entry
 * conditions (checked by the caller at its own step, since a false one blocks a transition but faults a
 * creation), then the status, the entry actions, the state's automatic transitions followed (each step
 * exits, acts and enters like a triggered transition, in the same change), then, for the state the chain
 * ends in, the interests recomputed from the context as it then stands, the outbox rows of everything
 * the change raised, and the state's timers armed (timers.ts).
 */
import { MAX_AUTOMATIC_STEPS, isAutomaticTransition, isFinalState, type StateDefinition, type TransitionDefinition } from '../definition/definition';
import { statePath } from './decision-trace';
import { budgetFault, budgetShare, depthFault, isDueAtOnce } from './causal-budget';
import { actorOfCause, causeKey, followUpActor, followUpDepth, type Cause } from './decision';
import { InstanceStatus } from '../model/enums';
import { computeInterests } from './interests';
import { MAX_OUTBOX_ROWS_PER_CHANGE, OutboxKind, type OutboxRow } from '../model/outbox';
import { HistoryEvent, type AppliedTrigger, type ArmedTimer, type HistoryEntry, type Instance } from '../model/instance';
import type { JsonObject } from '../model/json';
import type { Draft } from './draft';
import { armTimers, timerOutboxRows } from './timers';
import { derivedChildId } from '../steps/actions/start-instance';
import { raisedTriggerId } from '../model/trigger-ids';
import { systemActor } from '../model/actor';

/** One automatic transition taken: a history entry and a lifecycle event of its own. */
export interface AutomaticStep {
  readonly transitionId: string;
  readonly fromStateId: string;
  readonly toStateId: string;
  /** The status on entering `toStateId` (`complete` for a final state). */
  readonly status: InstanceStatus;
}

/** What entering a state produced: the parts of the next instance it decides, and the rows to write. */
export interface EnteredState {
  /** The state the change ends in: the one entered, or the last an automatic transition reached. */
  readonly stateId: string;
  readonly status: InstanceStatus;
  readonly interests: readonly string[];
  /** Which entry into the state this is (the sequence of the history entry that records it). */
  readonly stateEntry: number;
  /** The automatic transitions taken after the entry, in order (each one history entry after the change's own). */
  readonly automaticSteps: readonly AutomaticStep[];
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
  const automaticSteps = await followAutomaticTransitions(draft);
  return settleEntry(draft, cause, stateEntry + automaticSteps.length, enteredAt, automaticSteps);
}

/**
 * The state's automatic transitions, followed from the draft's state (its entry actions already run),
 * in the order the README states ("Automatic transitions"): for a state that has any, its exit
 * conditions (one false: the instance waits there), then the first automatic transition, in definition
 * order, whose conditions all hold, else its `otherwise` one (none: it waits there), then the target's
 * entry conditions (one false: it waits there), then the exit actions, the transition's actions, the move
 * and the target's entry actions; and again from the target. Throws (a StepFailure, the loop limit) to
 * fault the instance, as any step of the change would.
 */
export async function followAutomaticTransitions(draft: Draft): Promise<AutomaticStep[]> {
  const steps: AutomaticStep[] = [];
  for (;;) {
    const fromStateId = draft.stateId;
    const state = stateOf(draft, fromStateId);
    const chosen = await chooseAutomatic(draft, fromStateId, state);
    if (!chosen) return steps;
    if (steps.length === MAX_AUTOMATIC_STEPS) throw new Error(automaticLoopMessage([...steps.map((step) => step.fromStateId), fromStateId]));
    await draft.runActions(state.exitActions, `exit action of state "${fromStateId}"`, statePath(fromStateId, 'exitActions'));
    await draft.runActions(chosen.actions, `action of transition "${chosen.id}"`, statePath(fromStateId, `transitions[${state.transitions.indexOf(chosen)}].actions`));
    const target = stateOf(draft, chosen.targetStateId);
    draft.stateId = chosen.targetStateId;
    draft.status = isFinalState(target) ? InstanceStatus.complete : InstanceStatus.waiting;
    await draft.runActions(target.entryActions, `entry action of state "${chosen.targetStateId}"`, statePath(chosen.targetStateId, 'entryActions'));
    steps.push({ transitionId: chosen.id, fromStateId, toStateId: chosen.targetStateId, status: draft.status });
  }
}

/**
 * The automatic transition to take from `stateId` now, or undefined when the instance is to wait there.
 * One whose target is full (`capacity`, Effects.automaticEntry) is not taken, as if its conditions were
 * false: the next one is considered (its verdict is in the trace).
 */
async function chooseAutomatic(draft: Draft, stateId: string, state: StateDefinition): Promise<TransitionDefinition | undefined> {
  if (!state.transitions.some(isAutomaticTransition)) return undefined;
  if ((await draft.firstFalse(state.exitConditions, `exit condition of state "${stateId}"`, statePath(stateId, 'exitConditions'))) >= 0) return undefined;
  for (const [index, transition] of state.transitions.entries()) {
    if (!isAutomaticTransition(transition) || transition.otherwise) continue;
    const path = statePath(stateId, `transitions[${index}].conditions`);
    if ((await draft.firstFalse(transition.conditions, `condition of transition "${transition.id}" of state "${stateId}"`, path)) < 0) {
      if ((await entryBlockedAt(draft, transition.targetStateId)) >= 0) return undefined;
      if (await hasRoom(draft, stateId, transition.targetStateId)) return transition;
    }
  }
  const otherwise = state.transitions.find((transition) => isAutomaticTransition(transition) && transition.otherwise);
  if (!otherwise || (await entryBlockedAt(draft, otherwise.targetStateId)) >= 0) return undefined;
  return (await hasRoom(draft, stateId, otherwise.targetStateId)) ? otherwise : undefined;
}

/** Whether a state with `capacity` has room for the draft (counted in when it has), its verdict traced. */
async function hasRoom(draft: Draft, fromStateId: string, toStateId: string): Promise<boolean> {
  if (toStateId === fromStateId || !draft.effects.automaticEntry) return true;
  const verdict = await draft.effects.automaticEntry(toStateId, { fromStateId, context: draft.context, status: draft.status, trigger: draft.trigger });
  if (!verdict) return true;
  draft.trace.push({ path: `states.${toStateId}.capacity`, type: 'capacity', result: verdict.admitted, detail: verdict.detail });
  return verdict.admitted;
}

/** The fault of a chain too long: the states it went through, shortened to the last loop when it repeats one. */
function automaticLoopMessage(visited: readonly string[]): string {
  const last = visited[visited.length - 1]!;
  const start = visited.lastIndexOf(last, visited.length - 2);
  const states = (start >= 0 ? visited.slice(start) : visited).map((stateId) => JSON.stringify(stateId).slice(1, -1)).join(' → ');
  return `more than ${MAX_AUTOMATIC_STEPS} automatic transitions in one change: ${start >= 0 ? 'the loop' : 'the states'} ${states}`;
}

/**
 * The history entries of a change that entered a state: its own (`first`, for the state it entered),
 * then one `transitioned` entry per automatic step, with the same time and trigger. `historyEntry` is
 * the last; `precedingEntries` (absent when there is no step) are the ones before it.
 */
export function entriesOfEntry(first: HistoryEntry, steps: readonly AutomaticStep[]): { historyEntry: HistoryEntry; precedingEntries?: HistoryEntry[] } {
  if (steps.length === 0) return { historyEntry: first };
  const entries: HistoryEntry[] = [{ ...first, status: InstanceStatus.waiting }, ...steps.map((step, index) => automaticStepEntry(step, first.sequence + index + 1, first.at, first.triggerId))];
  return { historyEntry: entries[entries.length - 1]!, precedingEntries: entries.slice(0, -1) };
}

/** The `transitioned` history entry of one automatic step of a change. */
export function automaticStepEntry(step: AutomaticStep, sequence: number, at: string, triggerId: string | null): HistoryEntry {
  return { sequence, at, event: HistoryEvent.transitioned, triggerId, transitionId: step.transitionId, fromStateId: step.fromStateId, toStateId: step.toStateId, status: step.status };
}

/**
 * The end of an entry, for the state the draft is in: interests, timers (armed for the entry numbered
 * `stateEntry`, from `enteredAt`) and the change's outbox rows.
 */
export async function settleEntry(draft: Draft, cause: Cause, stateEntry: number, enteredAt: Date, automaticSteps: readonly AutomaticStep[] = []): Promise<EnteredState> {
  const stateId = draft.stateId;
  const state = stateOf(draft, stateId);
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
  // Each automatic step writes a history entry and may write an event record in the same transaction.
  if (automaticSteps.length > 0 && outbox.length + 2 * automaticSteps.length > MAX_OUTBOX_ROWS_PER_CHANGE) {
    throw new Error(
      `one change may raise triggers, arm timers and take automatic transitions (2 rows each) for at most ${MAX_OUTBOX_ROWS_PER_CHANGE} rows, not ${outbox.length + 2 * automaticSteps.length}`,
    );
  }
  const dueAtOnce = timers.find(isDueAtOnce);
  const timerFault = dueAtOnce && budgetFault(`the timer of transition "${dueAtOnce.transitionId}" (due at once)`, share, pieces, cause);
  if (timerFault) throw new Error(timerFault);
  return { stateId, status: draft.status, interests, stateEntry, automaticSteps, timers, outbox };
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

/**
 * The instance after a change that entered a state: `base` (the instance before, its fault cleared or
 * not by the caller) in the state the entry ends in, with the draft's context, the state's interests,
 * timers and outbox, the trigger remembered, and `historyLength` entries written.
 */
export function afterEntering(
  base: Instance,
  entered: EnteredState,
  change: { readonly context: JsonObject; readonly at: string; readonly appliedTriggers: readonly AppliedTrigger[]; readonly historyLength: number },
): Instance {
  return {
    ...base,
    stateId: entered.stateId,
    status: entered.status,
    context: change.context,
    interests: entered.interests,
    updatedAt: change.at,
    appliedTriggers: change.appliedTriggers,
    outbox: entered.outbox.map((row) => row.id),
    historyLength: change.historyLength,
    stateEntry: entered.stateEntry,
    timers: entered.timers,
  };
}
