/**
 * @module Migrating an instance to another version of its workflow, decided. A migration relabels: the
 * instance is pinned to the target version, its state mapped (`stateMap`, else the same id when the
 * target version has it), its interests recomputed from the target state, one `migrated` history entry
 * written. No entry or exit actions run and nothing is raised, unless the mapped state has automatic
 * transitions: a waiting instance then follows them as on any entry (enter-state.ts), each step one more
 * history entry, in the migration's change. `migrationVerdict` is the pure rule the dry run reports with
 * and the real run applies under the lease.
 */
import { isAutomaticTransition, isFinalState, type WorkflowDefinition } from '../definition/definition';
import type { Cause, Decision } from './decision';
import { unchanged } from './decision';
import type { Effects } from '../steps/effects';
import { ActionOutcome, InstanceStatus } from '../model/enums';
import { HistoryEvent, type HistoryEntry, type Instance } from '../model/instance';
import { plainInstance } from './instance-changes';
import type { InstanceResult } from './instance-result';
import { computeInterests } from './interests';
import { matchesSelection, migrationSelection, type MigrationRequest } from './operation-work';
import type { Registry } from '../steps/registry';
import { Draft, messageOf } from './draft';
import { armTimers, timerOutboxRows } from './timers';
import type { ArmedTimer } from '../model/instance';
import { entriesOfEntry, followAutomaticTransitions, settleEntry } from './enter-state';

/** Statuses an instance can be migrated in (a faulted one is then recovered in the new version). */
const migratableStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.waiting, InstanceStatus.suspended, InstanceStatus.faulted]);

export type MigrationVerdict =
  { readonly move: true; readonly toStateId: string } | { readonly move: false; readonly outcome: typeof ActionOutcome.skipped | typeof ActionOutcome.notMigratable; readonly reason: string };

/** Where the instance goes under `request` into `target` (the definition of `request.toVersion`), or why it does not. */
export function migrationVerdict(request: MigrationRequest, target: WorkflowDefinition, instance: Instance): MigrationVerdict {
  if (instance.workflowId === request.workflowId && instance.workflowVersion === request.toVersion) {
    return { move: false, outcome: ActionOutcome.skipped, reason: `already on version ${request.toVersion}` };
  }
  if (!matchesSelection(instance, migrationSelection(request))) {
    return { move: false, outcome: ActionOutcome.skipped, reason: `no longer matches the migration (version ${instance.workflowVersion}, state "${instance.stateId}", ${instance.status})` };
  }
  if (!migratableStatuses.has(instance.status)) {
    return { move: false, outcome: ActionOutcome.notMigratable, reason: `status ${instance.status} is not migratable` };
  }
  const mapped = Object.hasOwn(request.stateMap, instance.stateId) ? request.stateMap[instance.stateId]! : instance.stateId;
  const state = Object.hasOwn(target.states, mapped) ? target.states[mapped] : undefined;
  if (!state) {
    return { move: false, outcome: ActionOutcome.notMigratable, reason: `state "${instance.stateId}" is neither mapped nor in version ${request.toVersion}` };
  }
  if (isFinalState(state) && instance.status !== InstanceStatus.faulted) {
    // A waiting instance in a state without transitions could never move again.
    return { move: false, outcome: ActionOutcome.notMigratable, reason: `state "${mapped}" has no transitions in version ${request.toVersion}` };
  }
  if (instance.status === InstanceStatus.suspended && state.transitions.some(isAutomaticTransition)) {
    // Resuming takes no automatic transition: it would wait in a state it is meant to leave at once.
    return {
      move: false,
      outcome: ActionOutcome.notMigratable,
      reason: `state "${mapped}" has automatic transitions in version ${request.toVersion}, which a suspended instance would not take: resume it first`,
    };
  }
  return { move: true, toStateId: mapped };
}

/**
 * What `request`'s operation did to the instance already, when it migrated it (Instance.migratedBy): an
 * operation resumed after a crash offers again the instances whose results its checkpoint had not counted
 * yet. Found on the target version they would read `skipped`; they were migrated, once, by this operation.
 */
export function migratedAlready(request: MigrationRequest, instance: Instance): InstanceResult | undefined {
  const by = instance.migratedBy;
  if (request.operationId === undefined || by?.operationId !== request.operationId) return undefined;
  return { instanceId: instance.id, outcome: ActionOutcome.migrated, fromStateId: by.fromStateId, toStateId: by.toStateId };
}

/**
 * The decision for one instance: `migrated`, or unchanged with `skipped`/`notMigratable` and the reason;
 * unchanged and `migrated` as it was when this operation migrated it before (migratedAlready).
 */
export async function decideMigrate(request: MigrationRequest, target: WorkflowDefinition, stored: Instance, effects: Effects, registry: Registry): Promise<Decision> {
  const instance = plainInstance(stored);
  const done = migratedAlready(request, instance);
  if (done) return unchanged(done);
  const verdict = migrationVerdict(request, target, instance);
  if (!verdict.move) return unchanged({ instanceId: instance.id, outcome: verdict.outcome, fromStateId: instance.stateId, error: verdict.reason });
  const { toStateId } = verdict;
  const draft = new Draft(target, request.toVersion, instance.id, null, effects, registry, {
    context: instance.context,
    stateId: toStateId,
    status: instance.status,
    ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}),
  });
  if (instance.status === InstanceStatus.waiting && target.states[toStateId]!.transitions.some(isAutomaticTransition)) {
    const moved = await migrateThroughAutomaticTransitions(request, instance, draft, toStateId);
    if (moved) return moved;
  }
  let interests: string[];
  try {
    interests = await computeInterests(instance.id, target.states[toStateId]!, draft.scope(), registry, effects);
  } catch (error) {
    return unchanged({
      instanceId: instance.id,
      outcome: ActionOutcome.failed,
      fromStateId: instance.stateId,
      error: `the interests of state "${toStateId}" could not be computed: ${messageOf(error)}`,
    });
  }
  const now = effects.now();
  const at = now.toISOString();
  // Timers: the migration is a new entry of the (mapped) state for timer purposes, so timers armed for
  // the old entry go stale. A timer transition of the target state that was armed before (same id) keeps
  // its due time (a migration must not reset a 48-hour escalation); one new in the target version counts
  // from now. An `at` that gives no instant refuses the migration of this instance (`failed`).
  let timers: ArmedTimer[];
  try {
    const before = new Map((instance.timers ?? []).map((timer) => [timer.transitionId, timer.dueAt]));
    timers = (await armTimers(draft, target.states[toStateId]!, now)).map((timer) => ({ ...timer, dueAt: before.get(timer.transitionId) ?? timer.dueAt }));
  } catch (error) {
    return unchanged({ instanceId: instance.id, outcome: ActionOutcome.failed, fromStateId: instance.stateId, error: `the timers of state "${toStateId}" could not be armed: ${messageOf(error)}` });
  }
  const stateEntry = instance.historyLength;
  const outbox = timerOutboxRows(instance, stateEntry, timers);
  return {
    result: { instanceId: instance.id, outcome: ActionOutcome.migrated, fromStateId: instance.stateId, toStateId },
    change: {
      instance: {
        ...migratedByOf(request, instance, toStateId),
        workflowVersion: request.toVersion,
        stateId: toStateId,
        interests,
        updatedAt: at,
        historyLength: instance.historyLength + 1,
        stateEntry,
        timers,
        outbox: outbox.map((row) => row.id),
      },
      historyEntry: migratedEntry(instance, request, toStateId, at),
      outbox,
    },
    logs: [],
  };
}

/**
 * The migration of a waiting instance into a state with automatic transitions: followed as on any entry,
 * in the migration's change. Undefined when none is taken (the plain relabel applies); a step that fails
 * refuses the migration of this instance (`failed`), changing nothing.
 */
async function migrateThroughAutomaticTransitions(request: MigrationRequest, instance: Instance, draft: Draft, toStateId: string): Promise<Decision | undefined> {
  const cause: Cause = { kind: 'migrate', sequence: instance.historyLength };
  const failed = (error: unknown) =>
    unchanged({
      instanceId: instance.id,
      outcome: ActionOutcome.failed,
      fromStateId: instance.stateId,
      error: `the automatic transitions of state "${toStateId}" could not be followed: ${messageOf(error)}`,
    });
  try {
    const steps = await followAutomaticTransitions(draft);
    if (steps.length === 0) return undefined;
    const now = draft.effects.now();
    const at = now.toISOString();
    const entered = await settleEntry(draft, cause, instance.historyLength + steps.length, now, steps);
    return {
      result: { instanceId: instance.id, outcome: ActionOutcome.migrated, fromStateId: instance.stateId, toStateId: entered.stateId },
      change: {
        instance: {
          ...migratedByOf(request, instance, entered.stateId),
          workflowVersion: request.toVersion,
          stateId: entered.stateId,
          status: entered.status,
          context: draft.context,
          interests: entered.interests,
          updatedAt: at,
          historyLength: entered.stateEntry + 1,
          stateEntry: entered.stateEntry,
          timers: entered.timers,
          outbox: entered.outbox.map((row) => row.id),
        },
        ...entriesOfEntry(migratedEntry(instance, request, toStateId, at), steps),
        outbox: entered.outbox,
      },
      logs: draft.logs,
    };
  } catch (error) {
    return failed(error);
  }
}

/** The instance, recording the operation migrating it to `toStateId` (Instance.migratedBy); outside an operation, recording none. */
function migratedByOf(request: MigrationRequest, instance: Instance, toStateId: string): Instance {
  const { migratedBy: _earlier, ...rest } = instance;
  if (request.operationId === undefined) return rest;
  return { ...rest, migratedBy: { operationId: request.operationId, fromVersion: instance.workflowVersion, fromStateId: instance.stateId, toStateId } };
}

/** The history entry of a migration: the version it left and the one it entered (its state mapped, or kept). */
function migratedEntry(instance: Instance, request: MigrationRequest, toStateId: string, at: string): HistoryEntry {
  return {
    sequence: instance.historyLength,
    at,
    event: HistoryEvent.migrated,
    triggerId: null,
    transitionId: null,
    fromStateId: instance.stateId,
    toStateId,
    status: instance.status,
    fromVersion: instance.workflowVersion,
    toVersion: request.toVersion,
  };
}
