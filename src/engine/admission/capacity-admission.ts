/**
 * @module A trigger whose transition would take the instance into a state with `capacity`
 * (definition/state-capacity.ts), checked before any of the transition's steps run (Effects.beforeEntering):
 * the verdict is read off the state's row as it is (nothing written: deciding writes nothing) and recorded
 * as an admission request of the decision (decide/admission-request.ts), which the run loop reserves before
 * the save (admission-protocol.ts). Admitted, the transition goes on; else the trigger stops there (no
 * action run) and waits in the state's queue (state-capacity.ts), or its wait ends with `capacityTimeout`. Each verdict opens the
 * decision trace. A change that stays in its state, or a state without `capacity`, costs nothing here.
 */
import type { WorkflowDefinition } from '../definition';
import { capacityTimeoutInMs, type StateCapacityDefinition } from '../definition';
import type { Decision } from '../decide/decision';
import type { AdmissionRequest } from '../decide/admission-request';
import type { TraceEntry } from '../decide/decision-trace';
import { TriggerOutcome } from '../model/enums';
import { flowKeyOf } from './flow-admission';
import type { CapacityEntry, CapacityWait, Instance } from '../model/instance';
import { withCapacityWait, withCapacityWaitIn, withoutCapacityWait } from './capacity-waits';
import { triggerPriority, type Trigger } from '../model/trigger';
import { CAPACITY_ROOM_TRIGGER_NAME, internalKindOf } from '../model/internal-trigger';
import type { Effects } from '../steps/effects';
import type { FlowRow, OperationOptions } from '../ports';
import type { CapacityOffer, CapacityRequest, StateCapacityRows, StateKeyCapacity } from './state-capacity';

/** What admitNow reads of the instance about to enter (a creation has no stored instance yet). */
export type EnteringInstance = Pick<Instance, 'id' | 'workflowId' | 'status' | 'context' | 'historyLength' | 'capacityEntry'>;

export function capacityTracePath(stateId: string): string {
  return `states.${stateId}.capacity`;
}

/** A decision's admission request and the row its plan read (the reservation writes over it when it is unchanged). */
export interface PlannedAdmission {
  readonly request: AdmissionRequest;
  readonly row: FlowRow<StateKeyCapacity> | undefined;
}

/** A place written on its row for this application (admission-protocol.ts): confirmed or released after the save. */
export interface ReservedPlace {
  readonly entry: CapacityEntry;
  readonly limit: number;
  readonly historyLength: number;
  /** When it was reserved (ISO 8601): the member's `since`, should it have to be listed again. */
  readonly since: string;
}

/**
 * One trigger's (or outside change's) application, over every decision made for it (a 412 or a lost
 * reservation decides again): the plan of the current decision (where it would be counted in, the trace
 * entry of its check, its admission requests), the places reserved so far, and the waiters a full row
 * handed back to be offered again.
 */
export class CapacityGate {
  /** Where the current decision's trigger would be counted in. */
  private entered?: CapacityEntry;
  /** Where a change from outside was counted in before deciding (admitNow): reserved, not part of any decision's plan. */
  private outsideEntry?: CapacityEntry;
  /** Where the current decision's automatic transitions would be counted in (withAutomaticEntry), in order. */
  private automaticEntries: CapacityEntry[] = [];
  /** Automatic transitions not taken for a full state: each instance's wait, from the state it waits in. */
  private automaticWaits: (CapacityWait & { readonly whileIn: string })[] = [];
  /** The current decision's admission requests, in the order it made them. */
  private planned: PlannedAdmission[] = [];
  /** Places written on rows, by place: kept over a decision made again (the row lists them), settled after the save. */
  private readonly reserved = new Map<string, ReservedPlace>();
  readonly offers: CapacityOffer[] = [];
  private trace?: TraceEntry;
  /** The trigger checked last, and where it waits when it was queued (its deadline gets a timer). */
  private checked?: { readonly triggerId: string; readonly waitsIn?: CapacityWait };

  constructor(
    private readonly rows: StateCapacityRows | undefined,
    private readonly options: OperationOptions,
    private readonly now: () => Date,
  ) {}

  /** A decision is about to be made (again): its plan starts empty; reserved places stay. */
  beginDecision(): void {
    this.entered = undefined;
    this.automaticEntries = [];
    this.automaticWaits = [];
    this.planned = [];
    this.trace = undefined;
    this.checked = undefined;
  }

  /** The current decision's admission requests with the rows they were read from. */
  plan(): readonly PlannedAdmission[] {
    return this.planned;
  }

  /** Records a place written on its row (admission-protocol.ts). */
  reservedAt(place: ReservedPlace): void {
    this.reserved.set(placeName(place.entry), place);
  }

  /** The places written on rows for this application so far. */
  reservations(): ReservedPlace[] {
    return [...this.reserved.values()];
  }

  /** Forgets a place given back (its row no longer lists it). */
  released(entry: CapacityEntry): void {
    this.reserved.delete(placeName(entry));
  }

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
    const request: CapacityRequest = {
      workflowId: definition.id,
      stateId: toStateId,
      key,
      limit: capacity.limit,
      instanceId: stored.id,
      historyLength: stored.historyLength,
      ...(stored.incarnation !== undefined ? { incarnation: stored.incarnation } : {}),
      trigger,
      timeoutInMs: capacityTimeoutInMs(capacity),
    };
    // Read, not written: the decision is made on this verdict, and the run loop reserves it after (admission-protocol.ts).
    const { verdict, row } = await this.rows.previewEnter(request, this.options);
    this.planned.push({ request: { via: 'trigger', ...request, planned: verdict.verdict }, row });
    this.trace = { path, type: 'capacity', result: verdict.verdict === 'admitted', detail: verdict.detail };
    if (verdict.verdict === 'admitted') {
      this.entered = { stateId: toStateId, key };
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
    // Written before deciding, by the run loop's admission stage (not by a decision): reserved, settled after the save.
    const verdict = await this.rows.enterNow({ workflowId: definition.id, stateId, key, limit: capacity.limit, instanceId: instance.id, historyLength: instance.historyLength }, this.options);
    if (!verdict.admitted) {
      const waiting = verdict.waiting > 0 ? ` and ${verdict.waiting} waiting` : '';
      return { stateId, key, refused: `state \`${stateId}\` is full for key \`${key}\`: ${verdict.members}/${capacity.limit}${waiting}` };
    }
    this.outsideEntry = { stateId, key };
    this.reservedAt({ entry: this.outsideEntry, limit: capacity.limit, historyLength: instance.historyLength, since: this.now().toISOString() });
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
        const request = {
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
        };
        // Read, not written, as for a trigger's own entry: reserved by the run loop after the decision.
        const { verdict, row } = await rows.previewEnterNow(request, this.options);
        this.planned.push({ request: { via: 'automatic', ...request, planned: verdict.admitted ? 'admitted' : 'refused' }, row });
        const where = `${key} at ${verdict.members}/${capacity.limit} in ${toStateId}`;
        if (!verdict.admitted) {
          this.automaticWaits.push({ triggerId: waitId, stateId: toStateId, key, deadline: new Date(now.getTime() + capacityTimeoutInMs(capacity)).toISOString(), whileIn: entering.fromStateId });
          return { admitted: false, detail: `full: ${where}` };
        }
        this.automaticEntries.push({ stateId: toStateId, key });
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

  /** Every place this application is counted in, in order: from outside, then the current decision's. */
  places(): CapacityEntry[] {
    return [...(this.outsideEntry ? [this.outsideEntry] : []), ...(this.entered ? [this.entered] : []), ...this.automaticEntries];
  }

  /**
   * The decision with the check in its trace; its instance counted where it was admitted (when it stays
   * there) and no longer waiting; or, queued, keeping the wait with its deadline's timer (capacity-waits.ts).
   */
  decided(decision: Decision, stored: Instance, now: Date): Decision {
    const traced = this.trace ? { ...decision, result: { ...decision.result, trace: [this.trace, ...(decision.result.trace ?? [])] } } : decision;
    return this.decidedWaits(traced, stored, now);
  }

  /** The decision carrying its admission requests as data, for the run loop to reserve (admission-protocol.ts). */
  withAdmissions(decision: Decision): Decision {
    return this.planned.length > 0 ? { ...decision, admissions: this.planned.map((planned) => planned.request) } : decision;
  }

  private decidedWaits(traced: Decision, stored: Instance, now: Date): Decision {
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
}

/**
 * The state's capacity and the key an entry from outside (a creation, a recovery, a migration: no trigger)
 * counts under; undefined when nothing limits it: no `capacity`, counted there already, or the key yields
 * nothing or fails (as for a trigger, no limit applies then).
 */
export async function entryFromOutside(
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

export function placeName(place: CapacityEntry): string {
  return `${place.stateId}\u0000${place.key}`;
}

/** The instance without the waits of automatic transitions of states it is no longer in (their timers disarmed with them). */
function withoutWaitsLeft<Changed extends Instance>(instance: Changed): Changed {
  const left = (instance.capacityWaits ?? []).filter((wait) => wait.whileIn !== undefined && wait.whileIn !== instance.stateId);
  return left.reduce((within, wait) => withoutCapacityWait(within, wait.triggerId), instance);
}
