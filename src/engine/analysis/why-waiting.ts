/**
 * @module Why an instance is not moving: every situation it is in, from a closed set, with what to do
 * about each, and one primary class by a fixed precedence. Pure: the instance, its definition and what
 * the host looked up (the lease, the running children, the suspension's history entry) go in; both
 * hosts share it, and the workflow summary tallies the same answers. There is no "unknown": a faulted
 * or suspended instance is that (a trigger or timer of its state is no reason then: it takes none), and
 * every other instance that is not final is at least waiting for a trigger, for a timer, or `stranded`.
 */
import type { ActorsRule } from '../definition/actors-rule';
import { faultRetryRefusal } from '../decide/decide-fault-retry';
import type { WorkflowDefinition } from '../definition/definition';
import { InstanceStatus } from '../model/enums';
import type { Instance } from '../model/instance';
import { buildDefinitionGraph } from './definition-graph';
import { sortedNames } from './name-set';
import {
  MAX_FIXED_LEASE_SECONDS,
  waitingClassValues,
  WaitingClass,
  type DebouncedBurst,
  type WaitingAnswer,
  type WaitingFacts,
  type WaitingReason,
  type WaitingTimer,
  type WaitingTrigger,
} from './waiting-reasons';

export * from './waiting-reasons';

const finalStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.complete, InstanceStatus.cancelled]);
const precedence = new Map(waitingClassValues.map((value, index) => [value, index]));

/** A word a POSIX shell passes through as it is, or the word in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9._:@/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function instancePath(instanceId: string, action: string): string {
  return `/api/instances/${encodeURIComponent(instanceId)}/${action}`;
}

/** Why `instance` (on `definition`, its version) is not moving; see the module comment. */
export function whyWaiting(instance: Instance, definition: WorkflowDefinition, facts: WaitingFacts): WaitingAnswer {
  const reasons: WaitingReason[] = [];
  const id = instance.id;
  if (finalStatuses.has(instance.status)) {
    reasons.push({ class: WaitingClass.final, status: instance.status, at: instance.updatedAt });
  } else {
    if (instance.status === InstanceStatus.faulted) {
      const fault = instance.fault;
      reasons.push({
        class: WaitingClass.faulted,
        cause: fault?.message ?? 'the instance is faulted (no cause recorded)',
        triggerId: fault?.triggerId ?? null,
        at: fault?.at ?? instance.updatedAt,
        recover: {
          cli: `signalbox recover ${shellWord(id)} --state ${shellWord(instance.stateId)}`,
          http: { method: 'POST', path: instancePath(id, 'recover'), body: { stateId: instance.stateId } },
        },
        // The trigger that faulted it, applied again once the cause (a service down, say) is fixed.
        ...(faultRetryRefusal(definition, instance) === undefined ? { retry: { cli: `signalbox retry ${shellWord(id)}`, http: { method: 'POST' as const, path: instancePath(id, 'retry') } } } : {}),
      });
    }
    if (instance.status === InstanceStatus.suspended) {
      const by = facts.suspension?.by;
      reasons.push({
        class: WaitingClass.suspended,
        since: facts.suspension?.at ?? instance.updatedAt,
        ...(by !== undefined ? { by } : {}),
        resume: { cli: `signalbox resume ${shellWord(id)}`, http: { method: 'POST', path: instancePath(id, 'resume') } },
      });
    }
    const lease = facts.lease;
    if (lease?.held) {
      const infinite = lease.infinite === true;
      const here = lease.heldHere;
      const expiresBy = infinite ? undefined : (here?.expiresAt ?? (here ? undefined : new Date(facts.now.getTime() + MAX_FIXED_LEASE_SECONDS * 1000).toISOString()));
      reasons.push({
        class: WaitingClass.leaseHeld,
        heldByThisProcess: here !== undefined,
        ...(here ? { since: here.since } : {}),
        ...(expiresBy !== undefined ? { expiresBy } : {}),
        infinite,
        possiblyCrashedWorker: here === undefined,
      });
    }
    if (facts.slotQueue?.length) {
      const first = facts.slotQueue[0]!;
      reasons.push({
        class: WaitingClass.queuedForSlot,
        queued: facts.slotQueue,
        view: {
          cli: `signalbox flow ${shellWord(instance.workflowId)} ${shellWord(first.key)}`,
          http: { method: 'GET', path: `/api/flow/${encodeURIComponent(instance.workflowId)}/keys/${encodeURIComponent(first.key)}` },
        },
      });
    }
    if (facts.roomQueue?.length) {
      const first = facts.roomQueue[0]!;
      reasons.push({
        class: WaitingClass.waitingForRoom,
        waits: facts.roomQueue,
        view: {
          cli: `signalbox flow ${shellWord(instance.workflowId)} ${shellWord(first.key)}`,
          http: { method: 'GET', path: `/api/flow/${encodeURIComponent(instance.workflowId)}/keys/${encodeURIComponent(first.key)}` },
        },
      });
    }
    if (instance.pendingRetry) reasons.push({ class: WaitingClass.waitingForRetry, ...instance.pendingRetry });
    if (facts.runningChildren && facts.runningChildren.items.length + facts.runningChildren.more > 0) {
      reasons.push({ class: WaitingClass.waitingForChildren, children: facts.runningChildren.items, moreChildren: facts.runningChildren.more });
    }
    // Suspended and faulted instances take no trigger and fire no timer: their state's would mislead.
    const takesTriggers = instance.status === InstanceStatus.waiting || instance.status === InstanceStatus.initializing;
    const edges = takesTriggers ? buildDefinitionGraph(definition).transitionsFrom(instance.stateId) : [];
    const armed = new Map((instance.timers ?? []).map((timer) => [timer.transitionId, timer.dueAt]));
    const timers: WaitingTimer[] = edges.flatMap((edge) => {
      const dueAt = edge.timer ? armed.get(edge.id) : undefined;
      return dueAt === undefined ? [] : [{ transitionId: edge.id, targetStateId: edge.targetStateId, dueAt, overdue: Date.parse(dueAt) <= facts.now.getTime() }];
    });
    if (timers.length) reasons.push({ class: WaitingClass.waitingForTimer, timers });
    const triggers = edges
      .filter((edge) => !edge.timer)
      .map((edge): WaitingTrigger => {
        const names = sortedNames(edge.triggerNames);
        const only = edge.triggerNames.kind === 'only';
        const who = whoMayTake(edge.definition.actors);
        return {
          transitionId: edge.id,
          triggerNames: only ? names : ['*'],
          ...(!only && names.length ? { exceptTriggerNames: names } : {}),
          targetStateId: edge.targetStateId,
          ...(who.length ? { who } : {}),
        };
      });
    // A burst is kept while suspended or faulted but applied only once it takes triggers again.
    const bursts = takesTriggers ? (instance.debounces ?? []) : [];
    if (bursts.length) {
      const maxWaits = new Map((definition.flow?.debounce ?? []).map((policy) => [policy.trigger, policy.maxWaitMs]));
      reasons.push({
        class: WaitingClass.debounced,
        bursts: bursts.map((burst): DebouncedBurst => {
          const maxWaitMs = maxWaits.get(burst.triggerName);
          return {
            triggerName: burst.triggerName,
            coalesced: burst.coalesced,
            firstAt: burst.firstAt,
            dueAt: burst.dueAt,
            ...(maxWaitMs !== undefined ? { latestAt: new Date(Date.parse(burst.firstAt) + maxWaitMs).toISOString() } : {}),
            overdue: Date.parse(burst.dueAt) <= facts.now.getTime(),
          };
        }),
      });
    }
    if (triggers.length) reasons.push({ class: WaitingClass.waitingForTrigger, triggers, subjects: instance.interests });
    const held = instance.heldTriggers ?? [];
    if (held.length) reasons.push({ class: WaitingClass.heldNotifications, count: held.length, triggers: held.map((trigger) => ({ triggerId: trigger.id, name: trigger.name })) });
    // Nothing that moves it on its own or on a trigger: only an operator (recover, migrate, cancel) can.
    const moving = new Set<WaitingClass>([
      WaitingClass.faulted,
      WaitingClass.suspended,
      WaitingClass.queuedForSlot,
      WaitingClass.waitingForRoom,
      WaitingClass.waitingForRetry,
      WaitingClass.debounced,
      WaitingClass.waitingForChildren,
      WaitingClass.waitingForTimer,
      WaitingClass.waitingForTrigger,
    ]);
    if (takesTriggers && !reasons.some((reason) => moving.has(reason.class))) reasons.push({ class: WaitingClass.stranded, stateId: instance.stateId });
  }
  reasons.sort((a, b) => precedence.get(a.class)! - precedence.get(b.class)!);
  const primary = reasons[0]!;
  const since = primary.class === WaitingClass.faulted || primary.class === WaitingClass.final ? primary.at : primary.class === WaitingClass.suspended ? primary.since : instance.updatedAt;
  return { instanceId: id, workflowId: instance.workflowId, workflowVersion: instance.workflowVersion, stateId: instance.stateId, status: instance.status, class: primary.class, since, reasons };
}

/** The parts of an `actors` rule, as a person reads them: each must hold; the names within one are alternatives. */
function whoMayTake(rule: ActorsRule | undefined): string[] {
  if (!rule) return [];
  return [
    ...(rule.roles ? [`role: ${rule.roles.join(' or ')}`] : []),
    ...(rule.groups ? [`group: ${rule.groups.join(' or ')}`] : []),
    ...(rule.users ? [`user: ${rule.users.join(' or ')}`] : []),
    ...(rule.expression ? [`expression: ${rule.expression}`] : []),
  ];
}
