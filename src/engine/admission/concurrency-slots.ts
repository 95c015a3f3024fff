/**
 * @module Concurrency slots: the storage side of a workflow's `concurrency` policy. Each key has one row
 * (`slots|<key>`, flow-rows.ts) listing the applications holding a slot and the triggers waiting for one,
 * changed only with its ETag, so two workers never both take the last slot. A holder and a waiter carry an
 * expiry: a crashed worker's slot frees itself (holders renew theirs while they run). Waiters are admitted
 * in order (higher `priority` first, then arrival), each taking a slot only when fewer than the free
 * slots wait ahead of it; a trigger that waits past the policy's `maxWait` leaves the queue and is handed
 * back as retryable (FlowQueuedError), never dropped. Run-time limit overrides live on the same row, so
 * taking a slot costs one read and one write, releasing it another read and write.
 */
import { DEFAULT_TRIGGER_PRIORITY, FlowQueuedError, PreconditionFailedError, ConflictError, delay } from '../model';
import type { FlowRow, FlowStore, OperationOptions } from '../ports';
import { changeFlowRow } from './flow-row-change';
import { slotRows } from './flow-rows';
import { WaitingLine } from './waiting-line';

/** Triggers waiting per key; past this a trigger is handed back at once rather than queued. */
export const MAX_QUEUED_PER_KEY = 200;
/** How long a holder's slot outlives its last renewal when its worker stops renewing (a crash). @default */
export const DEFAULT_SLOT_TTL_IN_MS = 60_000;
/** A waiter's place outlives its wait by this much (a crashed waiter's place frees itself after). */
const WAITER_GRACE_IN_MS = 5_000;
/**
 * A parked trigger's listing lasts this long past its last try (renewed by each try once half has passed):
 * a listing is only as good as the process that tries it, and one left by a process that died, or by a trigger
 * its process no longer tries, must not hold the queue behind it for the policy's whole wait (up to 5 minutes:
 * a killed server's listings stopped a key with nothing running). Short, it costs a parked trigger that is not
 * tried for this long its place (it is listed again at the back), never its application.
 */
export const PARKED_LISTING_TTL_IN_MS = 15_000;
const MAX_POLL_INTERVAL_IN_MS = 250;

export interface SlotHolder {
  readonly id: string;
  readonly instanceId: string;
  readonly triggerId: string;
  readonly since: string;
  readonly expiresAt: string;
}

export interface SlotWaiter {
  readonly id: string;
  readonly instanceId: string;
  readonly triggerId: string;
  readonly priority: number;
  readonly arrivedAt: string;
  readonly expiresAt: string;
}

/** A run-time override of the definition's limit for one key (the admin route), with who set it. */
export interface LimitOverride {
  readonly limit: number;
  readonly by: string;
  readonly at: string;
}

/** One key's row. */
export interface KeySlots {
  readonly running: readonly SlotHolder[];
  readonly queued: readonly SlotWaiter[];
  readonly limitOverride?: LimitOverride;
}

/** Who asks for a slot. */
export interface SlotRequest {
  readonly workflowId: string;
  readonly key: string;
  /** The definition's limit (an override on the key's row wins). */
  readonly limit: number;
  readonly instanceId: string;
  readonly triggerId: string;
  /** 1-5, higher first. @default 3 */
  readonly priority?: number;
  readonly maxWaitInMs: number;
  /**
   * The caller parks the trigger instead of waiting (the local runner): it is listed in the key's queue under
   * an id derived from the instance and the trigger, for this long past its last attempt, so that the key's
   * view and the order across servers see it while it is parked, and its next attempt keeps its place.
   */
  readonly parkedListingInMs?: number;
}

/** A slot held: release it when the application is over. `detail` is for the decision trace. */
export interface HeldSlot {
  readonly workflowId: string;
  readonly key: string;
  readonly id: string;
  readonly detail: string;
}

export interface ConcurrencySlotsOptions {
  readonly now: () => Date;
  readonly newId: () => string;
  /** @default DEFAULT_SLOT_TTL_IN_MS */
  readonly slotTtlInMs?: number;
  readonly warn: (message: string, properties: Record<string, unknown>) => void;
}

/** A key's triggers waiting for a slot: in admission order, at most MAX_QUEUED_PER_KEY, each until its listing expires. */
const slotLine = new WaitingLine<SlotWaiter>({ maxWaiting: MAX_QUEUED_PER_KEY, endsAt: (waiter) => waiter.expiresAt });

export class ConcurrencySlots {
  private readonly ttlInMs: number;
  /** Slots held by this process, renewed until released. */
  private readonly renewals = new Map<string, ReturnType<typeof setInterval>>();
  /** Told of every slot this process gives back (the local runner wakes a trigger it parked for that key). */
  private readonly releaseListeners = new Set<(workflowId: string, key: string) => void>();

  constructor(
    private readonly store: FlowStore,
    private readonly options: ConcurrencySlotsOptions,
  ) {
    this.ttlInMs = options.slotTtlInMs ?? DEFAULT_SLOT_TTL_IN_MS;
  }

  /** The key's row as it stands (expired holders and waiters left out). */
  async read(workflowId: string, key: string, options: OperationOptions = {}): Promise<KeySlots> {
    return pruned(slotsOf(await this.store.getRow(workflowId, slotRows, key, options)), this.options.now());
  }

  /**
   * Takes a slot of the key, waiting in order for at most `maxWaitInMs` (then FlowQueuedError: retry later).
   * The slot renews itself until released (`release`).
   */
  async acquire(request: SlotRequest, options: OperationOptions = {}): Promise<HeldSlot> {
    const id = this.options.newId();
    const listingInMs = request.parkedListingInMs === undefined ? undefined : Math.min(request.parkedListingInMs, PARKED_LISTING_TTL_IN_MS);
    const waiterId = listingInMs !== undefined ? `parked:${request.instanceId}:${request.triggerId}` : id;
    const priority = request.priority ?? DEFAULT_TRIGGER_PRIORITY;
    const deadline = performance.now() + request.maxWaitInMs;
    let queuedDetail: string | undefined;
    let interval = 10;
    for (;;) {
      options.abortSignal?.throwIfAborted();
      const row = await this.store.getRow(request.workflowId, slotRows, request.key, options);
      const now = this.options.now();
      const slots = pruned(slotsOf(row), now);
      const limit = slots.limitOverride?.limit ?? request.limit;
      const mine = slotLine.placeOf(slots.queued, waiterId);
      const ahead = slotLine.ahead(slots.queued, mine ?? { id: waiterId, priority, arrivedAt: now.toISOString() });
      const free = limit - slots.running.length;
      if (free > 0 && ahead < free) {
        const holder: SlotHolder = { id, instanceId: request.instanceId, triggerId: request.triggerId, since: now.toISOString(), expiresAt: new Date(now.getTime() + this.ttlInMs).toISOString() };
        const next: KeySlots = { ...slots, running: [...slots.running, holder], queued: slotLine.remove(slots.queued, waiterId) };
        if (await this.write(request.workflowId, request.key, next, row, options)) {
          const at = `${request.key} at ${next.running.length}/${limit}`;
          const held = { workflowId: request.workflowId, key: request.key, id, detail: '' };
          const renewal = setInterval(() => void this.renew(held), Math.max(1000, Math.floor(this.ttlInMs / 3)));
          renewal.unref?.();
          this.renewals.set(id, renewal);
          return { workflowId: request.workflowId, key: request.key, id, detail: queuedDetail ? `admitted: ${at}, after ${queuedDetail}` : `admitted: ${at}` };
        }
        continue; // someone else wrote first: read again at once
      }
      const timedOut = performance.now() >= deadline;
      queuedDetail ??= `queued: ${request.key} at ${slots.running.length}/${limit}`;
      if (listingInMs !== undefined) {
        // Listed (or its listing renewed once half of it has passed), then handed back to be parked.
        const listedUntil = now.getTime() + listingInMs + WAITER_GRACE_IN_MS;
        const renew = !mine || Date.parse(mine.expiresAt) - now.getTime() < (listingInMs + WAITER_GRACE_IN_MS) / 2;
        if (renew) {
          const waiter: SlotWaiter = {
            id: waiterId,
            instanceId: request.instanceId,
            triggerId: request.triggerId,
            priority,
            arrivedAt: mine?.arrivedAt ?? now.toISOString(),
            expiresAt: new Date(listedUntil).toISOString(),
          };
          // Undefined when the key's line is full and this trigger is not in it yet: handed back unlisted.
          const queued = slotLine.enqueue(slots.queued, waiter);
          if (queued) {
            if (!(await this.write(request.workflowId, request.key, { ...slots, queued }, row, options))) continue;
            throw new FlowQueuedError(queuedDetail, { workflowId: request.workflowId, key: request.key }, { id: waiterId, priority, arrivedAt: waiter.arrivedAt });
          }
        }
        throw new FlowQueuedError(queuedDetail, { workflowId: request.workflowId, key: request.key }, mine ? { id: mine.id, priority: mine.priority, arrivedAt: mine.arrivedAt } : undefined);
      }
      if (!mine) {
        const waiter: SlotWaiter = {
          id,
          instanceId: request.instanceId,
          triggerId: request.triggerId,
          priority,
          arrivedAt: now.toISOString(),
          expiresAt: new Date(now.getTime() + request.maxWaitInMs + WAITER_GRACE_IN_MS).toISOString(),
        };
        const queued = timedOut ? undefined : slotLine.enqueue(slots.queued, waiter);
        if (!queued) throw new FlowQueuedError(queuedDetail, { workflowId: request.workflowId, key: request.key });
        if (!(await this.write(request.workflowId, request.key, { ...slots, queued }, row, options))) continue;
      } else if (timedOut) {
        await this.leaveQueue(request.workflowId, request.key, id, options);
        throw new FlowQueuedError(queuedDetail, { workflowId: request.workflowId, key: request.key });
      }
      await delay(interval, options.abortSignal);
      interval = Math.min(interval * 2, MAX_POLL_INTERVAL_IN_MS);
    }
  }

  /** Gives the slot back (a failed release is left to the slot's expiry). */
  async release(slot: HeldSlot, options: OperationOptions = {}): Promise<void> {
    clearInterval(this.renewals.get(slot.id));
    this.renewals.delete(slot.id);
    try {
      await this.change(slot.workflowId, slot.key, (slots) => ({ ...slots, running: slots.running.filter((holder) => holder.id !== slot.id) }), options);
      for (const listener of this.releaseListeners) listener(slot.workflowId, slot.key);
    } catch (error) {
      this.options.warn('Could not release a concurrency slot; it frees itself when it expires', { workflowId: slot.workflowId, key: slot.key, error: String(error) });
    }
  }

  /** Calls `listener` after each slot this process releases; returns the unsubscribe. */
  onRelease(listener: (workflowId: string, key: string) => void): () => void {
    this.releaseListeners.add(listener);
    return () => this.releaseListeners.delete(listener);
  }

  /** Sets (or, with `limit` undefined, removes) the key's run-time limit; returns the override it replaced. */
  async override(workflowId: string, key: string, limit: number | undefined, by: string, options: OperationOptions = {}): Promise<LimitOverride | undefined> {
    let previous: LimitOverride | undefined;
    await this.change(
      workflowId,
      key,
      (slots) => {
        previous = slots.limitOverride;
        const { limitOverride: _replaced, ...rest } = slots;
        return limit === undefined ? rest : { ...rest, limitOverride: { limit, by, at: this.options.now().toISOString() } };
      },
      options,
    );
    return previous;
  }

  private async renew(slot: HeldSlot): Promise<void> {
    try {
      const expiresAt = new Date(this.options.now().getTime() + this.ttlInMs).toISOString();
      await this.change(slot.workflowId, slot.key, (slots) => ({ ...slots, running: slots.running.map((holder) => (holder.id === slot.id ? { ...holder, expiresAt } : holder)) }));
    } catch (error) {
      this.options.warn('Could not renew a concurrency slot', { workflowId: slot.workflowId, key: slot.key, error: String(error) });
    }
  }

  private async leaveQueue(workflowId: string, key: string, id: string, options: OperationOptions): Promise<void> {
    try {
      await this.change(workflowId, key, (slots) => ({ ...slots, queued: slotLine.remove(slots.queued, id) }), options);
    } catch (error) {
      this.options.warn('Could not leave a concurrency queue; the place frees itself when it expires', { workflowId, key, error: String(error) });
    }
  }

  /** Read, change, conditional write, until the write lands (flow-row-change.ts), pausing a little more each time. */
  private async change(workflowId: string, key: string, update: (slots: KeySlots) => KeySlots, options: OperationOptions = {}): Promise<void> {
    await changeFlowRow(this.store, workflowId, slotRows, key, (row) => ({ next: update(pruned(slotsOf(row), this.options.now())), result: undefined }), {
      ...options,
      what: `The concurrency slots of "${key}"`,
      backoffInMs: (attempt) => Math.min(5 * (attempt - 1), MAX_POLL_INTERVAL_IN_MS),
    });
  }

  /** False when another writer got there first. */
  private async write(workflowId: string, key: string, slots: KeySlots, row: FlowRow<KeySlots> | undefined, options: OperationOptions): Promise<boolean> {
    try {
      await this.store.putRow(workflowId, slotRows, key, slots, { ...options, ...(row ? { ifMatch: row.etag } : {}) });
      return true;
    } catch (error) {
      if (error instanceof PreconditionFailedError || error instanceof ConflictError) return false;
      throw error;
    }
  }
}

/** The key's row as read (its kind's schema reads a missing list as empty), or an empty one. */
function slotsOf(row: FlowRow<KeySlots> | undefined): KeySlots {
  return row ? row.value : { running: [], queued: [] };
}

/** Without the holders and waiters whose time ran out (their workers stopped renewing or waiting). */
function pruned(slots: KeySlots, now: Date): KeySlots {
  const at = now.toISOString();
  return { ...slots, running: slots.running.filter((holder) => holder.expiresAt > at), queued: slotLine.expire(slots.queued, at).waiting };
}

/** A slots row read by listing (`slotRows`, the waiting service's lookup), as it stands at `now`. */
export function keySlotsOfRow(row: FlowRow<KeySlots>, now: Date): { readonly key: string; readonly slots: KeySlots } {
  return { key: row.key, slots: pruned(slotsOf(row), now) };
}
