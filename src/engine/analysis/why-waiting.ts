/**
 * @module Why an instance is not moving: every situation it is in, from a closed set, with what to do
 * about each, and one primary class by a fixed precedence. Pure: the instance, its definition and what
 * the host looked up (the lease, the running children, the suspension's history entry) go in; both
 * hosts share it, and the workflow summary tallies the same answers. There is no "unknown": a faulted
 * or suspended instance is that (a trigger or timer of its state is no reason then: it takes none), and
 * every other instance that is not final is at least waiting for a trigger, for a timer, or `stranded`.
 */
import { z } from 'zod';
import type { ActorsRule } from '../definition/actors-rule';
import { faultRetryRefusal } from '../decide/decide-fault-retry';
import type { WorkflowDefinition } from '../definition/definition';
import { InstanceStatus } from '../model/enums';
import type { Instance, PendingRetry } from '../model/instance';
import { buildDefinitionGraph } from './definition-graph';
import { sortedNames } from './name-set';

/** Why an instance is not moving, in precedence order: the first that applies is the primary class. */
export const WaitingClass = {
  /** Ended (complete or cancelled): it will never move again, and nothing is wrong. */
  final: 'final',
  /** A step failed and nothing handled it: someone must recover it. */
  faulted: 'faulted',
  /** A client suspended it: someone must resume it. */
  suspended: 'suspended',
  /**
   * A trigger of it waits in a `flow.concurrency` key's queue for a slot: it is applied when one frees (or
   * handed back to be retried after `maxWait`). Its worker holds the instance's lease meanwhile, so this
   * comes first: it says why the lease is held.
   */
  queuedForSlot: 'queuedForSlot',
  /**
   * An automatic transition of its state is not taken because its target is full (`capacity`): it waits in
   * that state and key's queue, and takes it when an instance leaves (or its wait ends after `timeout`).
   */
  waitingForRoom: 'waitingForRoom',
  /** A worker holds its lease: a change is under way, or the worker crashed and the lease has not expired yet. */
  leaseHeld: 'leaseHeld',
  /** A failed step waits for its next attempt (its retry policy): the engine applies the trigger again on its own. */
  waitingForRetry: 'waitingForRetry',
  /** A burst of triggers held back by `flow.debounce`: applied once, on its own, when it goes quiet (or at `maxWaitMs`). */
  debounced: 'debounced',
  /** Children it started have not ended: their ending notifies it. */
  waitingForChildren: 'waitingForChildren',
  /** A timer of its state is armed: it fires at its due time. */
  waitingForTimer: 'waitingForTimer',
  /** Its state answers triggers: someone must send one. */
  waitingForTrigger: 'waitingForTrigger',
  /** Notifications (a child's ending) arrived while it could not take them: applied once it is resumed or recovered. */
  heldNotifications: 'heldNotifications',
  /** Its state answers no trigger and none of its timers is armed (spent, or armed on another entry): only an operator moves it. */
  stranded: 'stranded',
} as const;
export type WaitingClass = (typeof WaitingClass)[keyof typeof WaitingClass];
export const waitingClassValues = Object.values(WaitingClass) as [WaitingClass, ...WaitingClass[]];
export const waitingClassSchema = z.enum(waitingClassValues);

/** A fixed-duration lease held elsewhere is renewed by its holder; if the holder is gone, it expires within this (the longest fixed lease). */
export const MAX_FIXED_LEASE_SECONDS = 60;
/** Running children named per instance (the rest are counted). */
export const MAX_CHILDREN_LISTED = 20;

export interface WaitingTrigger {
  readonly transitionId: string;
  /** The names it answers; `["*"]` for any name (minus `exceptTriggerNames`). */
  readonly triggerNames: readonly string[];
  readonly exceptTriggerNames?: readonly string[];
  readonly targetStateId: string;
  /**
   * Who may take it, from the transition's `actors` rule: every listed part must hold (`role:`, `group:`,
   * `user:` name alternatives within a part; `expression:` a rule over the actor). Absent: anyone whose
   * role lets them send triggers (Signalbox.Sender).
   */
  readonly who?: readonly string[];
}

export interface WaitingTimer {
  readonly transitionId: string;
  readonly targetStateId: string;
  readonly dueAt: string;
  /** Due and not fired yet: the scheduler is behind, or the host that schedules it is not running. */
  readonly overdue: boolean;
}

export interface RunningChild {
  readonly instanceId: string;
  readonly workflowId: string;
  readonly stateId: string;
  readonly status: InstanceStatus;
}

/** A trigger of the instance waiting for a slot of a `flow.concurrency` key, as the key's row says. */
export interface SlotQueuePlace {
  readonly key: string;
  readonly triggerId: string;
  readonly priority: number;
  readonly arrivedAt: string;
  /** 1 for the next admitted (admission order: higher priority first, then arrival). */
  readonly position: number;
  readonly queuedOnKey: number;
  readonly running: number;
  /** The limit in force (the run-time override's, else the definition's). */
  readonly limit: number;
}

/** A wait for room in a full state that an automatic transition of the instance's state needs, as the state and key's row says. */
export interface RoomWaitPlace {
  readonly stateId: string;
  readonly key: string;
  /** 1 for the next admitted (admission order: higher priority first, then arrival). */
  readonly position: number;
  readonly queuedOnKey: number;
  readonly members: number;
  readonly limit: number;
  readonly arrivedAt: string;
  /** When its wait ends unadmitted; the instance then stays where it is until its next change. */
  readonly deadline: string;
}

/** A burst held back by `flow.debounce`, from the instance's `debounces`. */
export interface DebouncedBurst {
  readonly triggerName: string;
  readonly coalesced: number;
  readonly firstAt: string;
  /** Applied then unless another trigger of the burst arrives first. */
  readonly dueAt: string;
  /** The latest it is applied, however many more arrive (`firstAt` + the policy's `maxWaitMs`); absent without `maxWaitMs`. */
  readonly latestAt?: string;
  /** Due and not applied yet: the timer host is behind or not running. */
  readonly overdue: boolean;
}

export type WaitingReason =
  | { readonly class: typeof WaitingClass.final; readonly status: InstanceStatus; readonly at: string }
  | {
      readonly class: typeof WaitingClass.faulted;
      readonly cause: string;
      readonly triggerId: string | null;
      readonly at: string;
      /** How to recover it into the state it faulted in (its entry runs again); another state may be named. */
      readonly recover: { readonly cli: string; readonly http: { readonly method: 'POST'; readonly path: string; readonly body: { readonly stateId: string } } };
      /** How to apply the trigger that faulted it again, exactly once (decide-fault-retry.ts): only when its fault can be retried. */
      readonly retry?: { readonly cli: string; readonly http: { readonly method: 'POST'; readonly path: string } };
    }
  | {
      readonly class: typeof WaitingClass.suspended;
      readonly since: string;
      readonly by?: string;
      readonly resume: { readonly cli: string; readonly http: { readonly method: 'POST'; readonly path: string } };
    }
  | {
      readonly class: typeof WaitingClass.leaseHeld;
      readonly heldByThisProcess: boolean;
      /** Known only when this process holds it. */
      readonly since?: string;
      /** When it ends unless renewed (this process's lease), or the latest it can end if its holder elsewhere stopped renewing; absent for an infinite lease. */
      readonly expiresBy?: string;
      readonly infinite: boolean;
      /** Held by another process: it may be working, or it may have crashed (then the lease expires by `expiresBy`, or never if infinite). */
      readonly possiblyCrashedWorker: boolean;
    }
  | {
      readonly class: typeof WaitingClass.queuedForSlot;
      readonly queued: readonly SlotQueuePlace[];
      /** How to see the key: what runs, what waits, the limit in force. */
      readonly view: { readonly cli: string; readonly http: { readonly method: 'GET'; readonly path: string } };
    }
  | {
      readonly class: typeof WaitingClass.waitingForRoom;
      readonly waits: readonly RoomWaitPlace[];
      /** How to see the first wait's key: the state's members and waiters. */
      readonly view: { readonly cli: string; readonly http: { readonly method: 'GET'; readonly path: string } };
    }
  | {
      readonly class: typeof WaitingClass.waitingForRetry;
      readonly triggerId: string;
      readonly triggerName: string;
      readonly attempt: number;
      readonly nextAttemptAt: string;
      readonly stepPath: string;
      readonly lastError: PendingRetry['lastError'];
    }
  | { readonly class: typeof WaitingClass.debounced; readonly bursts: readonly DebouncedBurst[] }
  | { readonly class: typeof WaitingClass.waitingForChildren; readonly children: readonly RunningChild[]; readonly moreChildren: number }
  | { readonly class: typeof WaitingClass.waitingForTimer; readonly timers: readonly WaitingTimer[] }
  | { readonly class: typeof WaitingClass.waitingForTrigger; readonly triggers: readonly WaitingTrigger[]; readonly subjects: readonly string[] }
  | { readonly class: typeof WaitingClass.heldNotifications; readonly count: number; readonly triggers: readonly { readonly triggerId: string; readonly name: string }[] }
  | { readonly class: typeof WaitingClass.stranded; readonly stateId: string };

export interface WaitingAnswer {
  readonly instanceId: string;
  readonly workflowId: string;
  readonly workflowVersion: number;
  readonly stateId: string;
  readonly status: InstanceStatus;
  /** The primary class: that of `reasons[0]`. */
  readonly class: WaitingClass;
  /** Not moving since: when it faulted, was suspended, or last changed. */
  readonly since: string;
  /** Every situation it is in, primary first, then in precedence order. */
  readonly reasons: readonly WaitingReason[];
}

/** What the host looked up beside the instance. An absent fact was not looked at (the workflow summary reads instance rows only). */
export interface WaitingFacts {
  readonly now: Date;
  /** `LeaseProvider.inspect`'s answer. */
  readonly lease?: { readonly held: boolean; readonly infinite?: boolean; readonly heldHere?: { readonly since: string; readonly expiresAt?: string } };
  /** Its children that have not ended (at most MAX_CHILDREN_LISTED are named), and how many more there are. */
  readonly runningChildren?: { readonly items: readonly RunningChild[]; readonly more: number };
  /** The history entry that suspended it. */
  readonly suspension?: { readonly at: string; readonly by?: string };
  /** Its triggers waiting in `flow.concurrency` queues (read from the keys' rows). */
  readonly slotQueue?: readonly SlotQueuePlace[];
  /** Its waits for room that automatic transitions of its state need (read from the target states' rows). */
  readonly roomQueue?: readonly RoomWaitPlace[];
}

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
