/**
 * @module The shapes of a state's `capacity` row (members and waiting triggers), its limits, and the pure
 * functions over it: the row key, its value (none for an absent row), its size, the waiting line's order.
 * state-capacity.ts changes the rows; this module only describes them.
 */
import type { AutomaticWaiter } from '../decide/admission-request';
import type { Trigger } from '../model/trigger';
import type { FlowRow, OperationOptions } from '../ports';
import type { FlowRowChangeOptions } from './flow-row-change';
import { WaitingLine } from './waiting-line';

/** How a verdict is reached on the row: over the row a plan read (`readBefore`), or worked out and not written (`readOnly`, a plan). */
export type RowChangeMode = OperationOptions & Pick<FlowRowChangeOptions<StateKeyCapacity>, 'readBefore' | 'readOnly'>;

/** Triggers that may wait per state and key; past this a trigger answers `capacityTimeout` at once. */
export const MAX_CAPACITY_QUEUED_PER_KEY = 500;
/**
 * A state and key's row (members and whole waiting triggers) as JSON, in characters: a waiter that would
 * take it past this answers `capacityTimeout` at once. Table Storage counts a string as UTF-16 (2 bytes a
 * character), so the row stays under 800 KB of the entity's 1 MiB: 500 triggers of 64 KiB would not.
 */
export const MAX_CAPACITY_ROW_CHARS = 400_000;
/** Waiters one leaving change offers again at most (each an outbox row of the change); the rest wait for the next. */
export const MAX_CAPACITY_REOFFERS_PER_CHANGE = 10;

export interface CapacityMember {
  readonly instanceId: string;
  readonly since: string;
  /** The instance's history length when it was counted in, before the change that enters is saved. */
  readonly historyLength: number;
}

/**
 * A trigger waiting for room (its `id` is the trigger's, so a repeat offer keeps its place). One shape with
 * the waiter a decision plans for an automatic transition (decide/, which ranks below this layer, defines it).
 */
export type CapacityWaiter = AutomaticWaiter;

export interface StateKeyCapacity {
  readonly members: readonly CapacityMember[];
  readonly queued: readonly CapacityWaiter[];
}

export interface CapacityRequest {
  readonly workflowId: string;
  readonly stateId: string;
  readonly key: string;
  readonly limit: number;
  readonly instanceId: string;
  /** The instance's history length as the trigger found it (its entering change is not saved yet). */
  readonly historyLength: number;
  readonly incarnation?: string;
  readonly trigger: Trigger;
  readonly timeoutInMs: number;
}

/**
 * A change that cannot wait in place (a creation, a recovery, a migration, an automatic transition) into a
 * state with `capacity`: counted in now, or not. `waitAs`: when not, the waiter to queue (an automatic
 * transition's instance, offered again when room frees); it keeps its place when it is queued already.
 */
export type CapacityEntryRequest = Omit<CapacityRequest, 'trigger' | 'timeoutInMs' | 'incarnation'> & { readonly waitAs?: CapacityWaiter };

/** What enterNow found: counted in or not, and the members and waiters as it decided. */
export interface CapacityEntryVerdict {
  readonly admitted: boolean;
  readonly members: number;
  readonly waiting: number;
}

/** A waiting trigger to offer again, and the queue it waits in. */
export interface CapacityOffer {
  readonly workflowId: string;
  readonly stateId: string;
  readonly key: string;
  readonly waiter: CapacityWaiter;
}

/** What became of a trigger into a state with `capacity`; `offer`: waiters to offer again now (room is free). */
export type CapacityDecision = {
  readonly verdict: 'admitted' | 'queued' | 'timedOut';
  readonly detail: string;
  readonly offer: readonly CapacityOffer[];
  /** When queued: the trigger's place (its deadline is when its timer ends the wait). */
  readonly waiter?: CapacityWaiter;
};

/** A state and key's row within its kind (`capacityRows`); with key '' the prefix of all the state's rows. */
export function capacityRowKey(stateId: string, key: string): string {
  return `${stateId}|${key}`;
}

/** A state and key's triggers waiting for room: in admission order, at most MAX_CAPACITY_QUEUED_PER_KEY, each until its deadline. */
export const capacityLine = new WaitingLine<CapacityWaiter>({ maxWaiting: MAX_CAPACITY_QUEUED_PER_KEY, endsAt: (waiter) => waiter.deadline });

/** The row's size as JSON, in characters. */
export function rowChars(value: StateKeyCapacity): number {
  return JSON.stringify(value).length;
}

/** The waiters to offer, then those past their deadline not among them. */
export function withExpired(offer: readonly CapacityWaiter[], queued: readonly CapacityWaiter[], now: string): CapacityWaiter[] {
  return [...offer, ...capacityLine.expire(queued, now).expired.filter((waiter) => !offer.includes(waiter))];
}

/** The members and waiters a state and key's row holds (none for an absent row). */
export function rowValue(row: FlowRow<StateKeyCapacity> | undefined): StateKeyCapacity {
  return row ? row.value : { members: [], queued: [] };
}
