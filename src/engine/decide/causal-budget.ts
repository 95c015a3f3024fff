/**
 * @module One causal budget for every kind of follow-up work. Three bounds, all enforced where
 * a change is decided, so every host and every kind of work gets them:
 *
 * - **Causal depth.** Work a change makes happen later (a raised trigger, a timer due at once, a child
 *   start, a child's notification to its parent) carries the change's depth + 1 (decision.ts
 *   `followUpDepth`); a client's trigger or request is depth 0. The depth travels in what persists the
 *   work (outbox rows, the instance's armed timers and the due-timer rows, the child's creation, the
 *   operation record of a raised trigger), so a restart resumes a chain where it stood. A change that
 *   would make work deeper than MAX_CAUSAL_DEPTH faults its instance instead (`depthFault`). A child's
 *   notification is the one exception: the child's end is a fact, so it is sent at whatever depth, and
 *   its parent cannot make anything further from it past the limit. A timer due later than the change
 *   that armed it starts a chain of its own (depth 0): waiting paces it, and the rate bound below applies.
 * - **Causal budget.** The depth bounds each chain, not a tree that branches (two `startInstance` of its
 *   own workflow would make 2^33 instances before every branch reaches the depth). A client's trigger or
 *   request starts a tree with MAX_CAUSAL_BUDGET; a change spends 1 and shares the rest evenly among its
 *   follow-up work (`budgetShare`: each raised trigger, child start and timer due at once, plus one share
 *   for the parent's notification when it enters a final state), which carries its share beside its
 *   depth, wherever the depth is stored; absent means the whole budget (old rows, timers due later). A
 *   share below 1 faults the change (`budgetFault`), but for a child's notification, sent at 0. So a tree
 *   makes at most MAX_CAUSAL_BUDGET changes, except that a raised trigger is applied by every instance
 *   interested in its subjects, each with the trigger's share: the recipients are bounded by the
 *   instances interested, each recipient's subtree by its share, and every chain by the depth.
 * - **Self-caused rate.** An instance may change itself without outside input (its own timer fired, or a
 *   trigger it raised came back to it) at most MAX_SELF_CAUSED_CHANGES_PER_MINUTE times in a window of a
 *   minute that opens at the first such change; one more faults it. The count lives on the instance
 *   (`selfCausedChanges`), so a restart does not reset it; any outside input (a client's trigger, a
 *   recovery, a resume, a migration, a bulk action) ends the count, so a chain driven from outside is never
 *   faulted by it, however fast.
 */
import { causalDepthOf, triggerDepth, type Cause } from './decision';
import type { ArmedTimer, Instance, SelfCausedChanges } from '../model/instance';
import { OutboxKind, type OutboxRow } from '../model/outbox';
import { MAX_CAUSAL_DEPTH, type Trigger } from '../model/trigger';
import { internalKindOf } from '../model/internal-trigger';

/**
 * The causal budget of one tree of follow-up work: what a client's trigger or request starts with, and
 * what a piece of work without one (a row written before the budget existed, a timer due later) has.
 */
export const MAX_CAUSAL_BUDGET = 10_000;

/** At most this many self-caused changes of one instance within a minute (60 s) without outside input. */
export const MAX_SELF_CAUSED_CHANGES_PER_MINUTE = 100;
export const SELF_CAUSED_WINDOW_IN_MS = 60_000;

/** A short description of what caused a change, for fault messages. */
export function describeCause(cause: Cause): string {
  switch (cause.kind) {
    case 'trigger':
      return describeTrigger(cause.trigger);
    case 'create':
      return causalDepthOf(cause) > 0 ? 'its creation as a child' : 'its creation';
    default:
      return `a ${cause.kind}`;
  }
}

function describeTrigger(trigger: Trigger): string {
  const timer = internalKindOf(trigger, 'timer');
  return timer ? `the timer of transition "${timer.transitionId}"` : `trigger "${trigger.name}"`;
}

/**
 * The message of the fault that stops a loop, or undefined while `depth` is within the limit. `work`
 * names the follow-up work (`raising trigger "Spin"`, `starting an instance of workflow "w"`, ...).
 */
export function depthFault(work: string, depth: number, cause?: Cause): string | undefined {
  if (depth <= MAX_CAUSAL_DEPTH) return undefined;
  const causedBy = cause ? `, in a change caused by ${describeCause(cause)}` : '';
  return `causal depth limit: ${work} would be follow-up work at causal depth ${depth}, more than ${MAX_CAUSAL_DEPTH}${causedBy} (raised triggers, timers due at once and children that keep causing each other: a loop?)`;
}

/** What is left of the causal budget of the tree `trigger` belongs to (absent: the whole budget). */
export function triggerBudget(trigger: Pick<Trigger, 'causalBudget'>): number {
  return trigger.causalBudget ?? MAX_CAUSAL_BUDGET;
}

/**
 * The causal budget of a change made for `cause`: a trigger's or a child's creation's share; the whole
 * budget for outside input (a client's request, a recovery, a cancel, a migration, a suspend, a resume).
 */
export function causalBudgetOf(cause: Cause): number {
  if (cause.kind === 'trigger') return triggerBudget(cause.trigger);
  if (cause.kind === 'create') return cause.causalBudget ?? MAX_CAUSAL_BUDGET;
  return MAX_CAUSAL_BUDGET;
}

/**
 * The budget each of `pieces` pieces of follow-up work of a change made for `cause` gets: the change
 * spends 1 and shares the rest evenly, rounding down, so the shares never add up to more than the
 * change had, and a tree of follow-up work never makes more changes than the budget it started with.
 * Below 1 the work may not be made (`budgetFault`), but for a child's notification to its parent.
 */
export function budgetShare(cause: Cause, pieces: number): number {
  return Math.max(0, Math.floor((causalBudgetOf(cause) - 1) / Math.max(1, pieces)));
}

/**
 * The message of the fault that stops a tree of follow-up work that keeps branching, when `share` (what
 * each of `pieces` pieces would get) is below 1; undefined otherwise. `work` names the first piece.
 */
export function budgetFault(work: string, share: number, pieces: number, cause: Cause): string | undefined {
  if (share >= 1) return undefined;
  return `causal budget: ${work} would get a budget of ${share}: the change had ${causalBudgetOf(cause)} left of the ${MAX_CAUSAL_BUDGET} its tree of follow-up work started with, spends 1 and shares the rest among ${pieces} pieces of follow-up work, in a change caused by ${describeCause(cause)} (raised triggers, timers due at once and children that keep branching: a loop?)`;
}

/** Whether an armed timer is follow-up work of the change that armed it (due at once), not a chain of its own. */
export function isDueAtOnce(timer: ArmedTimer): boolean {
  return timer.causalDepth !== undefined;
}

/**
 * How many pieces of follow-up work `instanceId`'s change wrote to `outbox`: what it raised, the children
 * it starts, its timers due at once. (A change that ends a child adds its notification to these.)
 */
export function followUpPieces(instanceId: string, outbox: readonly OutboxRow[]): number {
  return outbox.filter(
    (row) =>
      (row.kind === OutboxKind.trigger && row.payload.raisedBy === instanceId) || row.kind === OutboxKind.startInstance || (row.kind === OutboxKind.timer && row.payload.causalDepth !== undefined),
  ).length;
}

/** Whether applying `trigger` is the instance acting on itself: its own timer, or a trigger it raised. */
export function isSelfCaused(instanceId: string, trigger: Trigger): boolean {
  return internalKindOf(trigger, 'timer') !== undefined || trigger.raisedBy === instanceId;
}

/** Whether `trigger` is outside input: a client's trigger (no timer, not raised by any change). */
export function isOutsideInput(trigger: Trigger): boolean {
  return internalKindOf(trigger, 'timer') === undefined && trigger.raisedBy === undefined && triggerDepth(trigger) === 0;
}

function windowOpen(count: SelfCausedChanges | undefined, now: Date): count is SelfCausedChanges {
  return count !== undefined && now.getTime() - Date.parse(count.windowStartedAt) < SELF_CAUSED_WINDOW_IN_MS;
}

/**
 * The message of the fault that stops a self-caused loop, when applying `trigger` would be one change
 * too many within the window; undefined otherwise.
 */
export function selfCausedFault(instance: Instance, trigger: Trigger, now: Date): string | undefined {
  if (!isSelfCaused(instance.id, trigger)) return undefined;
  const count = instance.selfCausedChanges;
  if (!windowOpen(count, now) || count.count < MAX_SELF_CAUSED_CHANGES_PER_MINUTE) return undefined;
  return `self-caused change limit: the instance changed itself ${MAX_SELF_CAUSED_CHANGES_PER_MINUTE} times within a minute without outside input (since ${count.windowStartedAt}); ${describeTrigger(trigger)} would be one more (a loop?)`;
}

/**
 * `next` (the instance a step of `trigger` saves) with its self-caused count brought up to date: one more
 * for a self-caused step, none after outside input, unchanged otherwise (another instance's trigger, a
 * child's notification).
 */
export function withSelfCausedCount(next: Instance, trigger: Trigger, now: Date): Instance {
  if (isSelfCaused(next.id, trigger)) {
    const count = next.selfCausedChanges;
    const selfCausedChanges: SelfCausedChanges = windowOpen(count, now) ? { ...count, count: count.count + 1 } : { windowStartedAt: now.toISOString(), count: 1 };
    return { ...next, selfCausedChanges };
  }
  return isOutsideInput(trigger) ? withoutSelfCausedCount(next) : next;
}

/** The instance with no self-caused count (after outside input). */
export function withoutSelfCausedCount(instance: Instance): Instance {
  if (!('selfCausedChanges' in instance)) return instance;
  const { selfCausedChanges: _count, ...rest } = instance;
  return rest;
}
