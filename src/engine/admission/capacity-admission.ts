/**
 * @module A trigger whose transition would take the instance into a state with `capacity`
 * (definition/state-capacity.ts), checked before any of the transition's steps run (Effects.beforeEntering):
 * counted in when there is room, else the trigger stops there (nothing saved, no action run) and waits in
 * the state's queue (state-capacity.ts), or its wait ends with `capacityTimeout`. Each verdict opens the
 * decision trace. A change that stays in its state, or a state without `capacity`, costs nothing here.
 */
import type { WorkflowDefinition } from '../definition';
import { capacityTimeoutInMs, type StateCapacityDefinition } from '../definition';
import type { Decision } from '../decide/decision';
import type { TraceEntry } from '../decide/decision-trace';
import { TriggerOutcome } from '../model/enums';
import { flowKeyOf } from './flow-admission';
import type { CapacityEntry, CapacityWait, Instance } from '../model/instance';
import { withCapacityWait, withCapacityWaitIn, withoutCapacityWait } from './capacity-waits';
import { triggerPriority, type Trigger } from '../model/trigger';
import { CAPACITY_ROOM_TRIGGER_NAME, internalKindOf } from '../model/internal-trigger';
import type { Effects } from '../steps/effects';
import type { OperationOptions } from '../ports';
import type { CapacityOffer, StateCapacityRows } from './state-capacity';

/** What admitNow reads of the instance about to enter (a creation has no stored instance yet). */
export type EnteringInstance = Pick<Instance, 'id' | 'workflowId' | 'status' | 'context' | 'historyLength' | 'capacityEntry'>;

export function capacityTracePath(stateId: string): string {
  return `states.${stateId}.capacity`;
}

/**
 * One trigger's application, over every decision made for it (a 412 decides again): where it was counted
 * in, the trace entry of the last check, and the waiters a full row handed back to be offered again.
 */
export class CapacityGate {
  /** Where this application is counted (kept over a second decision: the row already lists it). */
  entered?: CapacityEntry;
  /** Where its automatic transitions were counted in (withAutomaticEntry), in order. */
  private readonly automaticEntries: CapacityEntry[] = [];
  /** Automatic transitions not taken for a full state: each instance's wait, from the state it waits in. */
  private readonly automaticWaits: (CapacityWait & { readonly whileIn: string })[] = [];
  readonly offers: CapacityOffer[] = [];
  /** Each place's limit as it was counted in, for the offers of giving it back. */
  private readonly limits = new Map<string, number>();
  private trace?: TraceEntry;
  /** The trigger checked last, and where it waits when it was queued (its deadline gets a timer). */
  private checked?: { readonly triggerId: string; readonly waitsIn?: CapacityWait };

  constructor(
    private readonly rows: StateCapacityRows | undefined,
    private readonly options: OperationOptions,
    private readonly now: () => Date,
  ) {}

  /**
   * The outcome that stops `trigger` before it enters `toStateId` (queued, timed out), or undefined. The
   * key reads the instance as the trigger found it (context before the transition's actions), in the
   * state it would enter, and the trigger.
   */
  async beforeEntering(definition: WorkflowDefinition, stored: Instance, toStateId: string, trigger: Trigger): Promise<TriggerOutcome | undefined> {
    this.trace = undefined;
    this.checked = { triggerId: trigger.id };
    const capacity = definition.states[toStateId]?.capacity;
    if (!this.rows || !capacity) return undefined;
    const path = capacityTracePath(toStateId);
    let key: string | undefined;
    try {
      key = await flowKeyOf(capacity.key, { ...stored, stateId: toStateId }, trigger, this.now);
    } catch (error) {
      this.trace = { path, type: 'capacity', result: 'error', detail: `no limit applied: the key failed (${error instanceof Error ? error.message : String(error)})` };
      return undefined;
    }
    if (key === undefined) {
      this.trace = { path, type: 'capacity', result: true, detail: 'no limit applied: the key yields nothing' };
      return undefined;
    }
    const verdict = await this.rows.enter(
      {
        workflowId: definition.id,
        stateId: toStateId,
        key,
        limit: capacity.limit,
        instanceId: stored.id,
        historyLength: stored.historyLength,
        ...(stored.incarnation !== undefined ? { incarnation: stored.incarnation } : {}),
        trigger,
        timeoutInMs: capacityTimeoutInMs(capacity),
      },
      this.options,
    );
    this.offers.push(...verdict.offer);
    this.trace = { path, type: 'capacity', result: verdict.verdict === 'admitted', detail: verdict.detail };
    if (verdict.verdict === 'admitted') {
      this.entered = { stateId: toStateId, key };
      this.limits.set(placeName(this.entered), capacity.limit);
      return undefined;
    }
    if (verdict.verdict === 'queued' && verdict.waiter) this.checked = { triggerId: trigger.id, waitsIn: { triggerId: trigger.id, stateId: toStateId, key, deadline: verdict.waiter.deadline } };
    return verdict.verdict === 'queued' ? TriggerOutcome.capacityQueued : TriggerOutcome.capacityTimeout;
  }

  /**
   * A change from outside (a creation, a recovery, a migration) that would take `instance` into `stateId`:
   * counted in when there is room beyond the waiting triggers, else the sentence refusing it (nothing
   * changed). The key reads the instance as it would enter (its context as the request gives it, in the
   * state) with no trigger. Nothing to do when the state has no `capacity`, the instance is counted there
   * already, or the key yields nothing (or fails: as for a trigger, no limit applies).
   */
  async admitNow(definition: WorkflowDefinition, instance: EnteringInstance, stateId: string): Promise<{ readonly stateId: string; readonly key: string; readonly refused: string } | undefined> {
    if (!this.rows) return undefined;
    const entry = await entryFromOutside(definition, instance, stateId, this.now);
    if (!entry) return undefined;
    const { capacity, key } = entry;
    const verdict = await this.rows.enterNow({ workflowId: definition.id, stateId, key, limit: capacity.limit, instanceId: instance.id, historyLength: instance.historyLength }, this.options);
    if (!verdict.admitted) {
      const waiting = verdict.waiting > 0 ? ` and ${verdict.waiting} waiting` : '';
      return { stateId, key, refused: `state \`${stateId}\` is full for key \`${key}\`: ${verdict.members}/${capacity.limit}${waiting}` };
    }
    this.entered = { stateId, key };
    this.limits.set(placeName(this.entered), capacity.limit);
    return undefined;
  }

  /**
   * `effects` with Effects.automaticEntry for a change of `instance` (as stored before it, or about to be
   * created): an automatic transition into a state with `capacity` is taken when the instance is counted in
   * there; when the state is full it is not, and the instance waits in the state's queue with a trigger of
   * its own (internal kind `capacityRoom`, one per state entry), offered again like any waiter when room frees.
   */
  withAutomaticEntry(effects: Effects, definition: WorkflowDefinition, instance: Pick<Instance, 'id' | 'workflowId' | 'incarnation' | 'historyLength' | 'capacityEntry'>): Effects {
    if (!this.rows || !Object.values(definition.states).some((state) => state.capacity)) return effects;
    const rows = this.rows;
    return {
      ...effects,
      automaticEntry: async (toStateId, entering) => {
        const capacity = definition.states[toStateId]?.capacity;
        if (!capacity || instance.capacityEntry?.stateId === toStateId) return undefined;
        let key: string | undefined;
        try {
          key = await flowKeyOf(capacity.key, { id: instance.id, workflowId: instance.workflowId, stateId: toStateId, status: entering.status, context: entering.context }, entering.trigger, this.now);
        } catch (error) {
          return { admitted: true, detail: `no limit applied: the key failed (${error instanceof Error ? error.message : String(error)})` };
        }
        if (key === undefined) return undefined;
        const now = this.now();
        // Offered again, it keeps its place under its own id; else one wait per state entry, of this
        // incarnation (an instance created again with the id reaches the same history length: a deleted
        // one's waiter, left in the queue until it is offered, must not pass for the new one's).
        const incarnation = instance.incarnation !== undefined ? `${instance.incarnation}:` : '';
        const waitId =
          entering.trigger && internalKindOf(entering.trigger, 'capacityRoom') ? entering.trigger.id : `${instance.id}:room:${incarnation}${entering.fromStateId}:${instance.historyLength}`;
        const roomTrigger: Trigger = { id: waitId, name: CAPACITY_ROOM_TRIGGER_NAME, subjects: [instance.id], internal: { kind: 'capacityRoom', stateId: entering.fromStateId } };
        const verdict = await rows.enterNow(
          {
            workflowId: definition.id,
            stateId: toStateId,
            key,
            limit: capacity.limit,
            instanceId: instance.id,
            historyLength: instance.historyLength,
            waitAs: {
              id: waitId,
              instanceId: instance.id,
              ...(instance.incarnation !== undefined ? { incarnation: instance.incarnation } : {}),
              trigger: roomTrigger,
              priority: triggerPriority(roomTrigger),
              arrivedAt: now.toISOString(),
              deadline: new Date(now.getTime() + capacityTimeoutInMs(capacity)).toISOString(),
            },
          },
          this.options,
        );
        const where = `${key} at ${verdict.members}/${capacity.limit} in ${toStateId}`;
        if (!verdict.admitted) {
          this.automaticWaits.push({ triggerId: waitId, stateId: toStateId, key, deadline: new Date(now.getTime() + capacityTimeoutInMs(capacity)).toISOString(), whileIn: entering.fromStateId });
          return { admitted: false, detail: `full: ${where}` };
        }
        this.automaticEntries.push({ stateId: toStateId, key });
        this.limits.set(placeName({ stateId: toStateId, key }), capacity.limit);
        return { admitted: true, detail: `admitted: ${where}` };
      },
    };
  }

  /** Whether this application was counted in `stateId` under `key` (by its trigger or an automatic transition). */
  admittedTo(stateId: string, key: string): boolean {
    return this.places().some((place) => place.stateId === stateId && place.key === key);
  }

  /** The instance as the change leaves it: counted where it was let in, when it is there. */
  counted<Changed extends Instance>(instance: Changed): Changed {
    const place = this.places()
      .reverse()
      .find((entry) => entry.stateId === instance.stateId);
    return place ? { ...instance, capacityEntry: place } : instance;
  }

  /** Every place this application was counted in, in order. */
  places(): CapacityEntry[] {
    return [...(this.entered ? [this.entered] : []), ...this.automaticEntries];
  }

  /**
   * The decision with the check in its trace; its instance counted where it was admitted (when it stays
   * there) and no longer waiting; or, queued, keeping the wait with its deadline's timer (capacity-waits.ts).
   */
  decided(decision: Decision, stored: Instance, now: Date): Decision {
    const traced = this.trace ? { ...decision, result: { ...decision.result, trace: [this.trace, ...(decision.result.trace ?? [])] } } : decision;
    const waitsIn = this.checked?.waitsIn;
    if (traced.result.outcome === TriggerOutcome.capacityQueued && waitsIn && !traced.change) {
      const { etag: _etag, ...plain } = stored as Instance & { etag?: string };
      const change = withCapacityWait(plain, waitsIn, now);
      return change ? { ...traced, change } : traced;
    }
    const next = traced.change?.instance;
    if (!next) return traced;
    const waited = this.checked ? withoutCapacityWait(next, this.checked.triggerId) : next;
    const counted = this.counted(withoutWaitsLeft(waited));
    const change = counted === next ? traced.change! : { ...traced.change!, instance: counted };
    // The instance stays in a state whose automatic transition waits for room: the wait gets its deadline's
    // timer, as a queued trigger's does (a wait kept already keeps its first deadline).
    const kept = this.automaticWaits.filter((wait) => wait.whileIn === counted.stateId).reduce((within, wait) => withCapacityWaitIn(within, wait, now), change);
    return kept === traced.change ? traced : { ...traced, change: kept };
  }

  /**
   * Counted in, but the saved instance is not there (a step faulted, an automatic transition went on): the
   * place is given back, and the waiters queued behind it meanwhile are offered (`offers`, after the lease).
   */
  async giveBackUnused(workflowId: string, instanceId: string, saved: Instance | undefined): Promise<void> {
    if (!this.rows) return;
    for (const place of this.places()) {
      if (saved?.capacityEntry?.stateId === place.stateId && saved.capacityEntry.key === place.key) continue;
      const limit = this.limits.get(placeName(place));
      if (limit !== undefined) this.offers.push(...(await this.rows.reoffersOnLeaving(workflowId, place.stateId, place.key, limit, instanceId, this.options)));
      await this.rows.leave(workflowId, place.stateId, place.key, instanceId, this.options);
    }
  }
}

/**
 * The state's capacity and the key an entry from outside (a creation, a recovery, a migration: no trigger)
 * counts under; undefined when nothing limits it: no `capacity`, counted there already, or the key yields
 * nothing or fails (as for a trigger, no limit applies then).
 */
async function entryFromOutside(
  definition: WorkflowDefinition,
  instance: EnteringInstance,
  stateId: string,
  now: () => Date,
): Promise<{ readonly capacity: StateCapacityDefinition; readonly key: string } | undefined> {
  const capacity = definition.states[stateId]?.capacity;
  if (!capacity || instance.capacityEntry?.stateId === stateId) return undefined;
  try {
    const key = await flowKeyOf(capacity.key, { ...instance, stateId }, null, now);
    return key === undefined ? undefined : { capacity, key };
  } catch {
    return undefined;
  }
}

function placeName(place: CapacityEntry): string {
  return `${place.stateId}\u0000${place.key}`;
}

/** The instance without the waits of automatic transitions of states it is no longer in (their timers disarmed with them). */
function withoutWaitsLeft<Changed extends Instance>(instance: Changed): Changed {
  const left = (instance.capacityWaits ?? []).filter((wait) => wait.whileIn !== undefined && wait.whileIn !== instance.stateId);
  return left.reduce((within, wait) => withoutCapacityWait(within, wait.triggerId), instance);
}

/**
 * A migration's dry run, predicting which instances a full state would refuse (`notMigratable`), as the
 * rows stand now: each key's row is read once, and the instances of the report take its room in the
 * order the report reads them, as the migration would offer them. Waiting triggers go first, as for any
 * entry from outside (admitNow). An estimate: the rows change while the migration runs, and members that
 * left without their change reaching the row yet are only reconciled by a real entry.
 */
export class CapacityForecast {
  private readonly rooms = new Map<string, { room: number; refused: string }>();

  constructor(
    private readonly rows: StateCapacityRows,
    private readonly now: () => Date,
    private readonly options: OperationOptions,
  ) {}

  /** Why `instance` would be refused entry into `stateId` of `definition`, or undefined when it would fit (taking its place). */
  async refusal(definition: WorkflowDefinition, instance: EnteringInstance & Pick<Instance, 'stateId'>, stateId: string): Promise<string | undefined> {
    const entry = await entryFromOutside(definition, instance, stateId, this.now);
    if (!entry) return undefined;
    const { capacity, key } = entry;
    const name = placeName({ stateId, key });
    let place = this.rooms.get(name);
    if (!place) {
      const row = await this.rows.read(definition.id, stateId, key, this.options);
      const waiting = row.queued.length > 0 ? ` and ${row.queued.length} waiting` : '';
      place = {
        room: capacity.limit - row.members.length - row.queued.length,
        refused: `state \`${stateId}\` would be full for key \`${key}\`: ${row.members.length}/${capacity.limit}${waiting} now`,
      };
      this.rooms.set(name, place);
    }
    if (place.room > 0) {
      place.room -= 1;
      return undefined;
    }
    return place.refused;
  }
}
