/**
 * @module The answer to "why is it not moving?" (why-waiting.ts decides it): the closed set of classes in
 * precedence order, each situation's shape, and the facts a host looks up for it.
 */
import { z } from 'zod';
import { InstanceStatus } from '../model/enums';
import type { PendingRetry } from '../model/instance';

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
