/**
 * @module Internal triggers: the kinds of trigger the engine makes for itself, as one typed union carried
 * on `Trigger.internal`, never on what a client sends (its input schema is strict, so a body naming
 * `internal` or any of the old field names is refused, 400 naming the field).
 *
 * Each kind was an optional field of `Trigger` before (`timer`, `retry`, `debounce`, `capacityReoffer`,
 * `capacityWait`, `capacityRoom`, beside `recipient`), and rows written then are still read: outbox rows,
 * operation records, queued rows, held and faulted triggers on instances, durable orchestration inputs.
 * `internalOf` reads either form, and `upgradeTrigger` rewrites an old one into the new one, so nothing
 * in flight across an upgrade is lost or read as a client's trigger.
 */
import type { Trigger } from './trigger';

/** What a timer trigger fires: a transition of the state entry the timer was armed for. */
export interface TimerTarget {
  readonly transitionId: string;
  readonly stateEntry: number;
  /** The incarnation that armed it (absent for instances without one). */
  readonly incarnation?: string;
}

/** What a pending retry's trigger re-applies. */
export interface RetryTarget {
  readonly triggerId: string;
  readonly attempt: number;
  /** The incarnation that scheduled it (absent for instances without one). */
  readonly incarnation?: string;
}

/** What a debounce's trigger applies: the pending burst of `triggerName` whose latest trigger is `triggerId`. */
export interface DebounceTarget {
  readonly triggerName: string;
  readonly triggerId: string;
  /** The incarnation that scheduled it (absent for instances without one). */
  readonly incarnation?: string;
}

/** The waiting trigger a re-offer applies, and the queue (state and key) it waits in. */
export interface CapacityReoffer {
  readonly workflowId: string;
  readonly stateId: string;
  readonly key: string;
  readonly trigger: Trigger;
}

/** The wait a capacity timer ends: the waiting trigger, where it waits, and the incarnation that waits. */
export interface CapacityWaitTarget {
  readonly triggerId: string;
  readonly stateId: string;
  readonly key: string;
  readonly incarnation?: string;
}

/** A timer's trigger (timers.ts): the one timer transition it may choose, and for which entry. */
export interface TimerFired extends TimerTarget {
  readonly kind: 'timer';
}
/** A pending retry's trigger (timers.ts): it re-applies that trigger, if it is still pending. */
export interface RetryDue extends RetryTarget {
  readonly kind: 'retry';
}
/** The trigger that applies a debounced burst (debounce.ts): the burst it applies, if it is still pending. */
export interface DebounceDue extends DebounceTarget {
  readonly kind: 'debounce';
}
/**
 * The copy that offers a trigger waiting for room in a full state again (an outbox row of the change that
 * made room, addressed by `Trigger.recipient`): applying it applies `trigger`, under its own id.
 */
export interface CapacityReoffered extends CapacityReoffer {
  readonly kind: 'capacityReoffer';
}
/** The timer's trigger that ends a wait for room at its deadline (Instance.capacityWaits). */
export interface CapacityWaitEnded extends CapacityWaitTarget {
  readonly kind: 'capacityWait';
}
/**
 * The trigger an instance waits with when an automatic transition of its state was not taken because its
 * target was full: offered again when room frees, it takes the state's automatic transitions again and
 * nothing else (decide-trigger.ts).
 */
export interface CapacityRoom {
  readonly kind: 'capacityRoom';
  readonly stateId: string;
}

/** Every kind of trigger the engine makes for itself. */
export type InternalTrigger = TimerFired | RetryDue | DebounceDue | CapacityReoffered | CapacityWaitEnded | CapacityRoom;
export type InternalTriggerKind = InternalTrigger['kind'];

/** The name of the trigger an instance waits with for room an automatic transition needs (CapacityRoom). */
export const CAPACITY_ROOM_TRIGGER_NAME = 'capacityRoom';

/** The optional fields each kind was carried in before the union, in the order the engine used to test them. */
const LEGACY_FIELDS = ['capacityReoffer', 'capacityWait', 'capacityRoom', 'retry', 'debounce', 'timer'] as const satisfies readonly InternalTriggerKind[];
type LegacyField = (typeof LEGACY_FIELDS)[number];
/** A trigger as rows written before the union hold it. */
type LegacyTrigger = Trigger & { readonly [field in LegacyField]?: object };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kind an old row's optional field stood for (undefined when it has none of them). */
function legacyInternalOf(trigger: LegacyTrigger): InternalTrigger | undefined {
  for (const field of LEGACY_FIELDS) {
    const target = trigger[field];
    if (!isObject(target)) continue;
    if (field === 'capacityReoffer' && isObject(target.trigger)) {
      return { ...(target as unknown as CapacityReoffer), kind: field, trigger: upgradeTrigger(target.trigger as unknown as Trigger) };
    }
    // Each field held exactly the target its kind extends (the interfaces above are those targets).
    return { ...target, kind: field } as InternalTrigger;
  }
  return undefined;
}

/** Which internal kind the trigger is, read from `internal` or from an old row's optional field; undefined for a client's or a raised one. */
export function internalOf(trigger: Trigger): InternalTrigger | undefined {
  return trigger.internal ?? legacyInternalOf(trigger);
}

/** The trigger's internal kind when it is `kind`, otherwise undefined. */
export function internalKindOf<K extends InternalTriggerKind>(trigger: Trigger, kind: K): Extract<InternalTrigger, { readonly kind: K }> | undefined {
  const internal = internalOf(trigger);
  return internal?.kind === kind ? (internal as Extract<InternalTrigger, { readonly kind: K }>) : undefined;
}

/** The trigger in the current form: an old row's optional kind field moved into `internal` (a re-offer's waiting trigger too). */
export function upgradeTrigger(trigger: Trigger): Trigger {
  const legacy = trigger as LegacyTrigger;
  if (!LEGACY_FIELDS.some((field) => legacy[field] !== undefined)) return trigger;
  const { capacityReoffer: _reoffer, capacityWait: _wait, capacityRoom: _room, retry: _retry, debounce: _debounce, timer: _timer, ...current } = legacy;
  const internal = trigger.internal ?? legacyInternalOf(legacy);
  return internal ? { ...current, internal } : current;
}

/** The trigger (in the current form) without its internal kind when that is `kind`: what it stands for, applied again as itself. */
export function withoutInternalKind(trigger: Trigger, kind: InternalTriggerKind): Trigger {
  const current = upgradeTrigger(trigger);
  if (current.internal?.kind !== kind) return current;
  const { internal: _internal, ...rest } = current;
  return rest;
}
