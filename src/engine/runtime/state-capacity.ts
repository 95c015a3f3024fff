/**
 * @module The storage side of `capacity` on a state. Each state and key has one row
 * (`capacity|<stateId>|<key>`, flow-store.ts) listing the instances counted in the state and the triggers
 * waiting for room, changed only with its ETag, so two workers never both take the last place. The
 * instances' own records are the truth: when the row says the state is full, each member is read and one no
 * longer in the state (it left by a cancel, a migration, a crash after the row was written) is dropped
 * before anyone is turned away. A waiting trigger is kept, whole, on the row until it is admitted or its
 * wait ends (`capacityTimeout`): whoever touches the row with room free hands the waiters back to be offered
 * again, in order (higher priority first, then arrival), so a trigger is never lost to a crash in between.
 */
import { PreconditionFailedError, ConflictError, type JsonObject } from '../model';
import { triggerPriority, type Trigger } from '../model/trigger';
import type { FlowRow, FlowStore, InstanceStore, OperationOptions } from '../ports';
import { inAdmissionOrder } from './concurrency-slots';

/** Triggers that may wait per state and key; past this a trigger answers `capacityTimeout` at once. */
export const MAX_CAPACITY_QUEUED_PER_KEY = 500;

export interface CapacityMember {
  readonly instanceId: string;
  readonly since: string;
  /** The instance's history length when it was counted in, before the change that enters is saved. */
  readonly historyLength: number;
}

/** A trigger waiting for room (its `id` is the trigger's, so a repeat offer keeps its place). */
export interface CapacityWaiter {
  readonly id: string;
  readonly instanceId: string;
  /** The incarnation it was sent to: an instance deleted and created again with the id never gets it. */
  readonly incarnation?: string;
  readonly trigger: Trigger;
  readonly priority: number;
  readonly arrivedAt: string;
  readonly deadline: string;
}

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

/** A waiting trigger to offer again, and the queue it waits in. */
export interface CapacityOffer {
  readonly workflowId: string;
  readonly stateId: string;
  readonly key: string;
  readonly waiter: CapacityWaiter;
}

/** What became of a trigger into a state with `capacity`; `offer`: waiters to offer again now (room is free). */
export type CapacityDecision = { readonly verdict: 'admitted' | 'queued' | 'timedOut'; readonly detail: string; readonly offer: readonly CapacityOffer[] };

export function capacityRowKey(stateId: string, key: string): string {
  return `capacity|${stateId}|${key}`;
}

export class StateCapacityRows {
  constructor(
    private readonly store: FlowStore,
    private readonly instances: Pick<InstanceStore, 'get'>,
    private readonly now: () => Date,
    /** How long a change counted in may take to be saved (its lease): until then a member not yet in the state still counts. */
    private readonly pendingSaveInMs: number,
  ) {}

  async read(workflowId: string, stateId: string, key: string, options: OperationOptions = {}): Promise<StateKeyCapacity> {
    return rowValue(await this.store.getRow(workflowId, capacityRowKey(stateId, key), options));
  }

  /** Counts the instance in, queues its trigger, or ends the trigger's wait. */
  async enter(request: CapacityRequest, options: OperationOptions = {}): Promise<CapacityDecision> {
    const where = `${request.key} at`;
    const inState = `in ${request.stateId}`;
    for (let attempt = 1; attempt <= 50; attempt++) {
      const row = await this.store.getRow(request.workflowId, capacityRowKey(request.stateId, request.key), options);
      let current = rowValue(row);
      const now = this.now().toISOString();
      if (current.members.some((member) => member.instanceId === request.instanceId)) {
        return { verdict: 'admitted', detail: `admitted: ${where} ${current.members.length}/${request.limit} ${inState}`, offer: [] };
      }
      if (current.members.length >= request.limit) current = await this.reconciled(request.workflowId, request.stateId, current, options);
      const ordered = inAdmissionOrder(current.queued);
      const mine = current.queued.find((waiter) => waiter.id === request.trigger.id);
      const ahead = mine ? ordered.indexOf(mine) : ordered.length;
      const free = request.limit - current.members.length;
      let next: StateKeyCapacity;
      let decision: CapacityDecision;
      const waitIsOver = mine !== undefined && mine.deadline <= now;
      if (free > 0 && ahead < free && !waitIsOver) {
        const member: CapacityMember = { instanceId: request.instanceId, since: now, historyLength: request.historyLength };
        next = { members: [...current.members, member], queued: current.queued.filter((waiter) => waiter.id !== request.trigger.id) };
        decision = { verdict: 'admitted', detail: `admitted: ${where} ${next.members.length}/${request.limit} ${inState}${mine ? `, after waiting since ${mine.arrivedAt}` : ''}`, offer: [] };
      } else if (waitIsOver || (!mine && current.queued.length >= MAX_CAPACITY_QUEUED_PER_KEY)) {
        next = { ...current, queued: current.queued.filter((waiter) => waiter.id !== request.trigger.id) };
        decision = {
          verdict: 'timedOut',
          detail: `capacityTimeout: ${where} ${current.members.length}/${request.limit} ${inState}, ${mine ? `waited since ${mine.arrivedAt}` : `${current.queued.length} already waiting`}`,
          offer: [],
        };
      } else {
        const waiter: CapacityWaiter = mine ?? {
          id: request.trigger.id,
          instanceId: request.instanceId,
          ...(request.incarnation !== undefined ? { incarnation: request.incarnation } : {}),
          trigger: request.trigger,
          priority: triggerPriority(request.trigger),
          arrivedAt: now,
          deadline: new Date(this.now().getTime() + request.timeoutInMs).toISOString(),
        };
        next = mine ? current : { ...current, queued: [...current.queued, waiter] };
        // Waiters ahead of this one while room is free: they are offered again (a crash may have stopped the offer).
        // Waiters whose wait is over are offered too, to end it (`capacityTimeout`) rather than sit on the row.
        const offer = withExpired(free > 0 ? ordered.slice(0, free) : [], ordered, now).filter((other) => other.id !== waiter.id);
        decision = {
          verdict: 'queued',
          detail: `queued: ${where} ${current.members.length}/${request.limit} ${inState}`,
          offer: offer.map((other) => ({ workflowId: request.workflowId, stateId: request.stateId, key: request.key, waiter: other })),
        };
      }
      if (next === current && row) return decision;
      if (await this.write(request.workflowId, request.stateId, request.key, next, row, options)) return decision;
    }
    throw new PreconditionFailedError(`The capacity row of "${request.key}" in "${request.stateId}" kept changing`);
  }

  /** The instance left the state: it no longer counts, and the first waiters that now fit are handed back to be offered. */
  async leave(workflowId: string, stateId: string, key: string, limit: number, instanceId: string, options: OperationOptions = {}): Promise<CapacityOffer[]> {
    for (let attempt = 1; attempt <= 50; attempt++) {
      const row = await this.store.getRow(workflowId, capacityRowKey(stateId, key), options);
      if (!row) return [];
      const current = rowValue(row);
      const next = { ...current, members: current.members.filter((member) => member.instanceId !== instanceId) };
      const ordered = inAdmissionOrder(next.queued);
      const offer = withExpired(ordered.slice(0, Math.max(0, limit - next.members.length)), ordered, this.now().toISOString()).map((waiter) => ({ workflowId, stateId, key, waiter }));
      if (next.members.length === current.members.length) return offer;
      if (await this.write(workflowId, stateId, key, next, row, options)) return offer;
    }
    throw new PreconditionFailedError(`The capacity row of "${key}" in "${stateId}" kept changing`);
  }

  /**
   * A waiter offered again that no longer heads for this state (its instance moved on, the trigger did
   * something else or nothing): it leaves the queue, which would otherwise hold it forever.
   */
  async forget(offer: CapacityOffer, options: OperationOptions = {}): Promise<void> {
    for (let attempt = 1; attempt <= 50; attempt++) {
      const row = await this.store.getRow(offer.workflowId, capacityRowKey(offer.stateId, offer.key), options);
      const current = rowValue(row);
      if (!row || !current.queued.some((waiter) => waiter.id === offer.waiter.id)) return;
      if (await this.write(offer.workflowId, offer.stateId, offer.key, { ...current, queued: current.queued.filter((waiter) => waiter.id !== offer.waiter.id) }, row, options)) return;
    }
    throw new PreconditionFailedError(`The capacity row of "${offer.key}" in "${offer.stateId}" kept changing`);
  }

  /**
   * Without the members whose own record is no longer in the state: gone, ended, or elsewhere after a
   * later save (or, with no save since, once the entering change's lease is over: it never will be saved).
   */
  private async reconciled(workflowId: string, stateId: string, current: StateKeyCapacity, options: OperationOptions): Promise<StateKeyCapacity> {
    const pendingSince = new Date(this.now().getTime() - this.pendingSaveInMs).toISOString();
    const still = await Promise.all(
      current.members.map(async (member) => {
        const instance = await this.instances.get(member.instanceId, options);
        if (!instance || instance.deleting || instance.workflowId !== workflowId || instance.status === 'complete' || instance.status === 'cancelled') return false;
        if (instance.stateId === stateId) return true;
        return instance.historyLength <= (member.historyLength ?? 0) && member.since > pendingSince;
      }),
    );
    return { ...current, members: current.members.filter((_member, index) => still[index]) };
  }

  private async write(workflowId: string, stateId: string, key: string, value: StateKeyCapacity, row: FlowRow | undefined, options: OperationOptions): Promise<boolean> {
    try {
      await this.store.putRow(workflowId, capacityRowKey(stateId, key), value as unknown as JsonObject, { ...options, ...(row ? { ifMatch: row.etag } : {}) });
      return true;
    } catch (error) {
      if (error instanceof PreconditionFailedError || error instanceof ConflictError) return false;
      throw error;
    }
  }
}

/** The waiters to offer, then those past their deadline not among them. */
function withExpired(offer: readonly CapacityWaiter[], queued: readonly CapacityWaiter[], now: string): CapacityWaiter[] {
  return [...offer, ...queued.filter((waiter) => waiter.deadline <= now && !offer.includes(waiter))];
}

function rowValue(row: FlowRow | undefined): StateKeyCapacity {
  if (!row) return { members: [], queued: [] };
  const value = row.value as unknown as Partial<StateKeyCapacity>;
  return { members: value.members ?? [], queued: value.queued ?? [] };
}
