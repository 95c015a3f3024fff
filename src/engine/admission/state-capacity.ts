/**
 * @module The storage side of `capacity` on a state. Each state and key has one row
 * (`capacity|<stateId>|<key>`, flow-rows.ts) listing the instances counted in the state and the triggers
 * waiting for room, changed only with its ETag, so two workers never both take the last place. The
 * instances' own records are the truth: when the row says the state is full, each member is read and one no
 * longer in the state (it left by a cancel, a migration, a crash after the row was written) is dropped
 * before anyone is turned away. A waiting trigger is kept, whole, on the row until it is admitted or its
 * wait ends (`capacityTimeout`): whoever touches the row with room free hands the waiters back to be offered
 * again, in order (higher priority first, then arrival), so a trigger is never lost to a crash in between.
 */
import { BoundedMap } from '../model/bounded-map';
import { triggerPriority } from '../model/trigger';
import type { FlowRow, FlowStore, InstanceStore, LeaseProvider, OperationOptions } from '../ports';
import { changeFlowRow } from './flow-row-change';
import { capacityRows } from './flow-rows';
import {
  MAX_CAPACITY_REOFFERS_PER_CHANGE,
  MAX_CAPACITY_ROW_CHARS,
  capacityLine,
  capacityRowKey,
  rowChars,
  rowValue,
  withExpired,
  type CapacityDecision,
  type CapacityEntryRequest,
  type CapacityEntryVerdict,
  type CapacityMember,
  type CapacityOffer,
  type CapacityRequest,
  type CapacityWaiter,
  type RowChangeMode,
  type StateKeyCapacity,
} from './capacity-rows';

export * from './capacity-rows';

/** Rows read by leaving changes and not yet written by their `leave`, kept at most. */
const MAX_READS_BEFORE_LEAVING = 256;

export class StateCapacityRows {
  /** The row each leaving change read for its re-offers, by workflow, row and instance, until its `leave`. */
  private readonly readsBeforeLeaving = new BoundedMap<string, FlowRow<StateKeyCapacity> | undefined>(MAX_READS_BEFORE_LEAVING);

  constructor(
    private readonly store: FlowStore,
    private readonly instances: Pick<InstanceStore, 'get'>,
    private readonly now: () => Date,
    /** How long a change counted in may take to be saved (its lease): until then a member not yet in the state still counts. */
    readonly pendingSaveInMs: number,
    /** The instances' leases: a member not yet saved into the state counts while its instance's lease is held (the reservation's fence, decision 0023). */
    private readonly leases?: Pick<LeaseProvider, 'inspect'>,
  ) {}

  async read(workflowId: string, stateId: string, key: string, options: OperationOptions = {}): Promise<StateKeyCapacity> {
    return rowValue(await this.store.getRow(workflowId, capacityRows, capacityRowKey(stateId, key), options));
  }

  /** The verdict `enter` would reach on the row as it is now, nothing written: a decision's plan, reserved after it (admission-protocol.ts). */
  async previewEnter(request: CapacityRequest, options: OperationOptions = {}): Promise<{ readonly verdict: CapacityDecision; readonly row: FlowRow<StateKeyCapacity> | undefined }> {
    const row = await this.store.getRow(request.workflowId, capacityRows, capacityRowKey(request.stateId, request.key), options);
    return { verdict: await this.enter(request, { ...options, readBefore: { row }, readOnly: true }), row };
  }

  /** The verdict `enterNow` would reach on the row as it is now, nothing written (see previewEnter). */
  async previewEnterNow(request: CapacityEntryRequest, options: OperationOptions = {}): Promise<{ readonly verdict: CapacityEntryVerdict; readonly row: FlowRow<StateKeyCapacity> | undefined }> {
    const row = await this.store.getRow(request.workflowId, capacityRows, capacityRowKey(request.stateId, request.key), options);
    return { verdict: await this.enterNow(request, { ...options, readBefore: { row }, readOnly: true }), row };
  }

  /** Counts the instance in, queues its trigger, or ends the trigger's wait. */
  async enter(request: CapacityRequest, options: RowChangeMode = {}): Promise<CapacityDecision> {
    const where = `${request.key} at`;
    const inState = `in ${request.stateId}`;
    return changeFlowRow(
      this.store,
      request.workflowId,
      capacityRows,
      capacityRowKey(request.stateId, request.key),
      async (row) => {
        let current = rowValue(row);
        const now = this.now().toISOString();
        if (current.members.some((member) => member.instanceId === request.instanceId)) {
          return { result: { verdict: 'admitted', detail: `admitted: ${where} ${current.members.length}/${request.limit} ${inState}`, offer: [] } };
        }
        if (current.members.length >= request.limit) current = await this.reconciled(request.workflowId, request.stateId, current, options);
        const ordered = capacityLine.inOrder(current.queued);
        const mine = capacityLine.placeOf(current.queued, request.trigger.id);
        // A newcomer waits behind every waiter (they came first), whatever its priority.
        const ahead = capacityLine.position(current.queued, request.trigger.id) ?? current.queued.length;
        const free = request.limit - current.members.length;
        let next: StateKeyCapacity;
        let decision: CapacityDecision;
        const waitIsOver = mine !== undefined && capacityLine.hasEnded(mine, now);
        const newcomer: CapacityWaiter | undefined = mine
          ? undefined
          : {
              id: request.trigger.id,
              instanceId: request.instanceId,
              ...(request.incarnation !== undefined ? { incarnation: request.incarnation } : {}),
              trigger: request.trigger,
              priority: triggerPriority(request.trigger),
              arrivedAt: now,
              deadline: new Date(this.now().getTime() + request.timeoutInMs).toISOString(),
            };
        const withNewcomer = newcomer && capacityLine.enqueue(current.queued, newcomer);
        const queueIsFull = newcomer !== undefined && (!withNewcomer || rowChars({ ...current, queued: withNewcomer }) > MAX_CAPACITY_ROW_CHARS);
        if (free > 0 && ahead < free && !waitIsOver) {
          const member: CapacityMember = { instanceId: request.instanceId, since: now, historyLength: request.historyLength };
          next = { members: [...current.members, member], queued: capacityLine.remove(current.queued, request.trigger.id) };
          decision = { verdict: 'admitted', detail: `admitted: ${where} ${next.members.length}/${request.limit} ${inState}${mine ? `, after waiting since ${mine.arrivedAt}` : ''}`, offer: [] };
        } else if (waitIsOver || queueIsFull) {
          next = { ...current, queued: capacityLine.remove(current.queued, request.trigger.id) };
          decision = {
            verdict: 'timedOut',
            detail: `capacityTimeout: ${where} ${current.members.length}/${request.limit} ${inState}, ${mine ? `waited since ${mine.arrivedAt}` : `${current.queued.length} already waiting`}`,
            offer: [],
          };
        } else {
          const waiter = mine ?? newcomer!;
          next = mine || !withNewcomer ? current : { ...current, queued: withNewcomer };
          // Waiters ahead of this one while room is free: they are offered again (an offer their instance could
          // not take, suspended at the time, or one a crash stopped). Waiters whose wait is over are offered too,
          // to end it (`capacityTimeout`) rather than sit on the row.
          const offer = withExpired(free > 0 ? ordered.slice(0, free) : [], ordered, now).filter((other) => other.id !== waiter.id);
          decision = {
            verdict: 'queued',
            waiter,
            detail: `queued: ${where} ${current.members.length}/${request.limit} ${inState}`,
            offer: offer.map((other) => ({ workflowId: request.workflowId, stateId: request.stateId, key: request.key, waiter: other })),
          };
        }
        return { result: decision, ...(next === current && row ? {} : { next }) };
      },
      { ...options, what: `The capacity row of "${request.key}" in "${request.stateId}"` },
    );
  }

  /**
   * The waiters that fit once `instanceId` has left the state (first in admission order, then those whose
   * wait is over, at most MAX_CAPACITY_REOFFERS_PER_CHANGE): read, not changed. The leaving change writes
   * each as an outbox row in its own save (admission/capacity-reoffers.ts), so none is lost to a crash.
   */
  async reoffersOnLeaving(workflowId: string, stateId: string, key: string, limit: number, instanceId: string, options: OperationOptions = {}): Promise<CapacityOffer[]> {
    const row = await this.store.getRow(workflowId, capacityRows, capacityRowKey(stateId, key), options);
    this.rememberRead(`${workflowId}\u0000${capacityRowKey(stateId, key)}\u0000${instanceId}`, row);
    const current = rowValue(row);
    if (current.queued.length === 0) return [];
    const staying = current.members.filter((member) => member.instanceId !== instanceId).length;
    const ordered = capacityLine.inOrder(current.queued);
    return withExpired(ordered.slice(0, Math.max(0, limit - staying)), ordered, this.now().toISOString())
      .slice(0, MAX_CAPACITY_REOFFERS_PER_CHANGE)
      .map((waiter) => ({ workflowId, stateId, key, waiter }));
  }

  /**
   * Counts the instance in when there is room beyond the triggers already waiting (they came first), else
   * answers why not (`state \`picking\` is full for key \`customer:42\`: 3/3`), changing nothing: a request
   * from outside is answered at once rather than queued.
   */
  async enterNow(request: CapacityEntryRequest, options: RowChangeMode = {}): Promise<CapacityEntryVerdict> {
    return changeFlowRow<StateKeyCapacity, CapacityEntryVerdict>(
      this.store,
      request.workflowId,
      capacityRows,
      capacityRowKey(request.stateId, request.key),
      async (row) => {
        let current = rowValue(row);
        if (current.members.some((member) => member.instanceId === request.instanceId)) return { result: { admitted: true, members: current.members.length, waiting: current.queued.length } };
        const mineOf = (value: StateKeyCapacity) => (request.waitAs ? capacityLine.placeOf(value.queued, request.waitAs.id) : undefined);
        // Waiters ahead of it go first (all of them, for one not queued).
        const aheadIn = (value: StateKeyCapacity) => (request.waitAs ? capacityLine.position(value.queued, request.waitAs.id) : undefined) ?? value.queued.length;
        if (current.members.length + aheadIn(current) >= request.limit) current = await this.reconciled(request.workflowId, request.stateId, current, options);
        const mine = mineOf(current);
        const now = this.now().toISOString();
        if (current.members.length + aheadIn(current) < request.limit) {
          const member: CapacityMember = { instanceId: request.instanceId, since: now, historyLength: request.historyLength };
          const next = { members: [...current.members, member], queued: mine ? capacityLine.remove(current.queued, mine.id) : current.queued };
          return { result: { admitted: true, members: next.members.length, waiting: next.queued.length }, next };
        }
        const verdict = { admitted: false, members: current.members.length, waiting: current.queued.length };
        // Its wait is over: it leaves the queue (the instance stays where it is until its next change).
        if (mine && capacityLine.hasEnded(mine, now)) return { result: verdict, next: { ...current, queued: capacityLine.remove(current.queued, mine.id) } };
        const line = request.waitAs && !mine ? capacityLine.enqueue(current.queued, request.waitAs) : undefined;
        if (!line) return { result: verdict };
        const queued = { ...current, queued: line };
        if (rowChars(queued) > MAX_CAPACITY_ROW_CHARS) return { result: verdict };
        return { result: { ...verdict, waiting: queued.queued.length }, next: queued };
      },
      { ...options, what: `The capacity row of "${request.key}" in "${request.stateId}"` },
    );
  }

  /**
   * The instance's change into the state is saved: its place is confirmed when the row still lists it. One a
   * reconciliation dropped meanwhile (the save outlived the lease that fenced it) is listed again, even over
   * the limit: the instance is in the state, and a row that does not count it would let others in past it.
   * Returns whether it had to be listed again.
   */
  async confirm(workflowId: string, stateId: string, key: string, member: CapacityMember, options: OperationOptions = {}): Promise<boolean> {
    return changeFlowRow<StateKeyCapacity, boolean>(
      this.store,
      workflowId,
      capacityRows,
      capacityRowKey(stateId, key),
      (row) => {
        const current = rowValue(row);
        if (current.members.some((listed) => listed.instanceId === member.instanceId)) return { result: false };
        return { result: true, next: { ...current, members: [...current.members, member] } };
      },
      { ...options, what: `The capacity row of "${key}" in "${stateId}"` },
    );
  }

  /** The instance left the state (its change is saved): it no longer counts. */
  async leave(workflowId: string, stateId: string, key: string, instanceId: string, options: OperationOptions = {}): Promise<void> {
    // The row its leaving change read for the re-offers, a moment ago: written over at once when no one changed it since.
    const remembered = `${workflowId}\u0000${capacityRowKey(stateId, key)}\u0000${instanceId}`;
    const readBefore = this.readsBeforeLeaving.has(remembered) ? { row: this.readsBeforeLeaving.get(remembered) } : undefined;
    this.readsBeforeLeaving.delete(remembered);
    await changeFlowRow(
      this.store,
      workflowId,
      capacityRows,
      capacityRowKey(stateId, key),
      (row) => {
        const current = rowValue(row);
        const members = current.members.filter((member) => member.instanceId !== instanceId);
        return { result: undefined, ...(row && members.length !== current.members.length ? { next: { ...current, members } } : {}) };
      },
      { ...options, what: `The capacity row of "${key}" in "${stateId}"`, ...(readBefore ? { readBefore } : {}) },
    );
  }

  /** Keeps the row a leaving change read (a few hundred at most: entries not taken by `leave`, after a failed save, go first). */
  private rememberRead(key: string, row: FlowRow<StateKeyCapacity> | undefined): void {
    this.readsBeforeLeaving.set(key, row);
  }

  /**
   * Ends a wait at its deadline (its timer fired): the waiter leaves the queue unapplied. Returns it, with
   * the members counted then, or undefined when it no longer waits (admitted, or gone another way).
   */
  async expire(workflowId: string, stateId: string, key: string, triggerId: string, options: OperationOptions = {}): Promise<{ waiter: CapacityWaiter; members: number } | undefined> {
    return changeFlowRow(
      this.store,
      workflowId,
      capacityRows,
      capacityRowKey(stateId, key),
      (row) => {
        const current = rowValue(row);
        const waiter = capacityLine.placeOf(current.queued, triggerId);
        if (!row || !waiter) return { result: undefined };
        const next = { ...current, queued: capacityLine.remove(current.queued, triggerId) };
        return { result: { waiter, members: current.members.length }, next };
      },
      { ...options, what: `The capacity row of "${key}" in "${stateId}"` },
    );
  }

  /**
   * A waiter offered again that no longer heads for this state (its instance moved on or is gone, the
   * trigger did something else or nothing): it leaves the queue, which would otherwise hold it forever.
   */
  async forget(offer: Pick<CapacityOffer, 'workflowId' | 'stateId' | 'key'> & { readonly waiter: Pick<CapacityWaiter, 'id'> }, options: OperationOptions = {}): Promise<void> {
    await changeFlowRow(
      this.store,
      offer.workflowId,
      capacityRows,
      capacityRowKey(offer.stateId, offer.key),
      (row) => {
        const current = rowValue(row);
        const queued = capacityLine.remove(current.queued, offer.waiter.id);
        return { result: undefined, ...(row && queued !== current.queued ? { next: { ...current, queued } } : {}) };
      },
      { ...options, what: `The capacity row of "${offer.key}" in "${offer.stateId}"` },
    );
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
        // Counted in by its creation, not saved yet: it counts until the creation could have been saved.
        if (!instance) return member.historyLength === 0 && member.since > pendingSince;
        if (instance.deleting || instance.workflowId !== workflowId || instance.status === 'complete' || instance.status === 'cancelled') return false;
        if (instance.stateId === stateId) return true;
        if (instance.historyLength > (member.historyLength ?? 0)) return false;
        return this.leases?.inspect ? this.stillPending(member.instanceId, stateId, options) : member.since > pendingSince;
      }),
    );
    return { ...current, members: current.members.filter((_member, index) => still[index]) };
  }

  /**
   * A member counted in whose change is not saved yet: it counts while its instance's lease is held (the
   * change may still be saved; a crashed holder's lease runs out). The lease first, then the instance again:
   * a change saved before its lease was let go is seen in the state.
   */
  private async stillPending(instanceId: string, stateId: string, options: OperationOptions): Promise<boolean> {
    if ((await this.leases!.inspect!(instanceId, options)).held) return true;
    return (await this.instances.get(instanceId, options))?.stateId === stateId;
  }
}
