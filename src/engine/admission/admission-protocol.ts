/**
 * @module The one admission protocol of states with `capacity` (decision 0023), written once for every
 * change that may enter one (a trigger, a creation, a recovery, a migration):
 *
 * 1. plan: the decision reads each state's row and records what it counts on as admission requests
 *    (decide/admission-request.ts); deciding writes nothing;
 * 2. reserve: each request is written on its row, conditional on the row's version (over the row the plan
 *    read when no one changed it since); a verdict that is not the planned one lost a race, and the
 *    decision is made again on the rows as they are now (as a 412 makes it again);
 * 3. save: the instance's own ETag-fenced transaction (change-under-lease.ts, instance-creation.ts);
 * 4. settle: each reserved place the saved instance is counted in is confirmed (listed again should a
 *    reconciliation have dropped it while the save was slow), every other one is released (given back, the
 *    waiters that now fit offered). After a failure the instance is read: what it says is settled the same way.
 *
 * A reservation not yet saved counts while its instance's lease is held (state-capacity.ts, reconciled): a
 * crash before the save frees it when the lease runs out, at the next full check; a crash after the save
 * leaves a member the instance's record confirms. Failures to settle are left to that reconciliation.
 */
import type { Decision } from '../decide/decision';
import type { AdmissionRequest } from '../decide/admission-request';
import type { Instance } from '../model/instance';
import { PreconditionFailedError } from '../model/errors';
import type { InstanceStore, OperationOptions } from '../ports';
import type { CapacityGate, PlannedAdmission, ReservedPlace } from './capacity-admission';
import type { StateCapacityRows } from './state-capacity';

/** Decisions made at most for one application when each loses its reservations' race. */
export const MAX_ADMISSION_ATTEMPTS = 10;

export interface AdmissionProtocolPorts {
  readonly rows: StateCapacityRows;
  readonly instances: Pick<InstanceStore, 'get'>;
  readonly now: () => Date;
  readonly warn: (message: string, properties: Record<string, unknown>) => void;
}

export class AdmissionProtocol {
  constructor(
    private readonly ports: AdmissionProtocolPorts | undefined,
    readonly gate: CapacityGate,
    private readonly options: OperationOptions,
  ) {}

  /**
   * Steps 1 and 2: `decideOnce` decides on the rows as read (its effects plan through the gate), then its
   * admission requests are reserved; one that lost its race decides again. The decision carries its requests.
   */
  async decide(decideOnce: () => Promise<Decision>): Promise<Decision> {
    for (let attempt = 1; attempt <= MAX_ADMISSION_ATTEMPTS; attempt++) {
      this.gate.beginDecision();
      const decision = this.gate.withAdmissions(await decideOnce());
      if (await this.reserve(this.gate.plan())) return decision;
    }
    throw new PreconditionFailedError(`The places in states with capacity kept changing while deciding; gave up after ${MAX_ADMISSION_ATTEMPTS} decisions`);
  }

  /** Writes each planned request on its row; false as soon as one reaches another verdict than planned. */
  private async reserve(plan: readonly PlannedAdmission[]): Promise<boolean> {
    if (!this.ports) return true;
    const { rows } = this.ports;
    for (const { request, row } of plan) {
      const mode = { ...this.options, readBefore: { row } };
      const since = this.ports.now().toISOString();
      let verdict: AdmissionRequest['planned'];
      if (request.via === 'trigger') {
        const { via: _via, planned: _planned, ...entering } = request;
        const reached = await rows.enter(entering, mode);
        verdict = reached.verdict;
        if (verdict === request.planned) this.gate.offers.push(...reached.offer);
      } else {
        const { via: _via, planned: _planned, ...entering } = request;
        verdict = (await rows.enterNow(entering, mode)).admitted ? 'admitted' : 'refused';
      }
      if (verdict === 'admitted') this.gate.reservedAt({ entry: { stateId: request.stateId, key: request.key }, limit: request.limit, historyLength: request.historyLength, since });
      if (verdict !== request.planned) return false;
    }
    return true;
  }

  /**
   * Step 4, after the save: the place the saved instance is counted in is confirmed, the others released.
   * `saved` absent (the change failed, or its outcome is unknown): the instance as stored now decides.
   */
  async settle(workflowId: string, instanceId: string, saved: Instance | undefined, failed = false): Promise<void> {
    if (!this.ports || this.gate.reservations().length === 0) return;
    const { rows } = this.ports;
    const truth = failed ? await this.ports.instances.get(instanceId, this.options) : saved;
    for (const place of this.gate.reservations()) {
      const used = truth?.capacityEntry?.stateId === place.entry.stateId && truth.capacityEntry.key === place.entry.key && truth.stateId === place.entry.stateId;
      if (used) {
        await this.confirm(workflowId, instanceId, place);
        continue;
      }
      this.gate.offers.push(...(await rows.reoffersOnLeaving(workflowId, place.entry.stateId, place.entry.key, place.limit, instanceId, this.options)));
      await rows.leave(workflowId, place.entry.stateId, place.entry.key, instanceId, this.options);
      this.gate.released(place.entry);
    }
  }

  /**
   * A reservation older than half the pending window may have been dropped by a reconciliation that saw
   * its lease run out while the save was slow: the row is read, and lists it again if so. A younger one
   * cannot have been (its lease was held throughout), so nothing is read.
   */
  private async confirm(workflowId: string, instanceId: string, place: ReservedPlace): Promise<void> {
    const { rows, now } = this.ports!;
    if (now().getTime() - Date.parse(place.since) < rows.pendingSaveInMs / 2) return;
    const member = { instanceId, since: place.since, historyLength: place.historyLength };
    if (await rows.confirm(workflowId, place.entry.stateId, place.entry.key, member, this.options)) {
      this.ports!.warn('A place in a state with capacity was dropped while its change was being saved; listed again', { instanceId, stateId: place.entry.stateId });
    }
  }
}
