/**
 * @module What a decision counts on in a state with `capacity`, as data: deciding reads a plan of the
 * state's row (its verdict on the row as read, nothing written) and records each entry here, in the
 * Decision, as XState returns actions. The run loop then runs one protocol over them
 * (admission/admission-protocol.ts): reserve each on its row, save, confirm or release. A reservation
 * whose verdict is not the planned one lost a race, and the decision is made again.
 */
import type { Trigger } from '../model/trigger';

/** The verdict a plan read, that the decision was made on. */
export type PlannedVerdict = 'admitted' | 'queued' | 'timedOut' | 'refused';

interface PlacedRequest {
  readonly workflowId: string;
  readonly stateId: string;
  readonly key: string;
  readonly limit: number;
  readonly instanceId: string;
  /** The instance's history length as the change found it (the entering change is not saved yet). */
  readonly historyLength: number;
  readonly planned: PlannedVerdict;
}

/** A waiter an automatic transition queues as when its target is full (admission/state-capacity.ts, CapacityWaiter). */
export interface AutomaticWaiter {
  readonly id: string;
  readonly instanceId: string;
  /** The incarnation it was sent to: an instance deleted and created again with the id never gets it. */
  readonly incarnation?: string;
  readonly trigger: Trigger;
  readonly priority: number;
  readonly arrivedAt: string;
  readonly deadline: string;
}

/**
 * `trigger`: the trigger's own transition enters (admitted), waits in the queue (queued) or its wait ends
 * (timedOut). `automatic`: an automatic transition enters (admitted) or is not taken, its instance queued as
 * `waitAs` (refused).
 */
export type AdmissionRequest =
  | (PlacedRequest & { readonly via: 'trigger'; readonly trigger: Trigger; readonly timeoutInMs: number; readonly incarnation?: string })
  | (PlacedRequest & { readonly via: 'automatic'; readonly waitAs?: AutomaticWaiter });
