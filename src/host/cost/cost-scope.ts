/**
 * @module Attributes every storage request and outbound call to the operation (or the application of an
 * operation to one instance) it is sent for (decision 0021). The storage clients and the outbound client
 * report to `costMeter`, which adds to the CostAccumulator of the current async context
 * (AsyncLocalStorage): the host opens one per operation run (`meter`), and the activity service one per
 * instance application inside it (`CostAccumulator.child`). Work started in a context carries it, so a
 * request made by a promise the application started counts to it wherever it is awaited.
 *
 * A child counts only its own requests; once closed (its cost read for the application's outcome), what
 * still reaches it (a lease released in the background after the application answered) goes to its
 * parent instead, so the operation's total misses nothing its run sent while the run was counting.
 * Requests sent outside any context (start-up, the timer scheduler's polls, HTTP reads) count nowhere.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { STORAGE_REQUEST_KINDS, emptyCost, type OperationCost, type StorageRequestCounts, type StorageRequestKind } from '../../engine/operations';
import type { StorageRequestMeter } from '../../storage/request-kind';
import { ValidationError } from '../../engine/model';
import { readSetting, type Environment } from '../settings';

type MutableCounts = { -readonly [K in keyof StorageRequestCounts]: number };

export class CostAccumulator {
  private readonly storage: MutableCounts = { ...emptyCost().storage };
  private readonly outbound = { calls: 0, bytesSent: 0, bytesReceived: 0 };
  private closed = false;
  /** The workflow of the instance being applied (told by the engine once it has loaded the instance). */
  workflowId: string | undefined;

  constructor(private readonly parent?: CostAccumulator) {}

  /** An accumulator for part of this one's work (one instance's application). */
  child(): CostAccumulator {
    return new CostAccumulator(this);
  }

  private target(): CostAccumulator {
    return this.closed && this.parent ? this.parent.target() : this;
  }

  countRequest(kind: StorageRequestKind): void {
    this.target().storage[kind] += 1;
  }

  countOutboundCall(bytesSent: number, bytesReceived: number): void {
    const target = this.target().outbound;
    target.calls += 1;
    target.bytesSent += bytesSent;
    target.bytesReceived += bytesReceived;
  }

  /** What was counted so far. */
  snapshot(): OperationCost {
    const storage = Object.fromEntries(STORAGE_REQUEST_KINDS.map((kind) => [kind, this.storage[kind]])) as unknown as StorageRequestCounts;
    return { storage, outbound: { ...this.outbound }, activities: 0 };
  }

  /** The cost so far; what arrives later goes to the parent (see the module comment). */
  close(): OperationCost {
    const cost = this.snapshot();
    this.closed = true;
    return cost;
  }
}

const current = new AsyncLocalStorage<CostAccumulator>();
/**
 * SIGNALBOX_COST_COUNTING (cost-counting.ts), for the whole process: off, nothing is ever run in an
 * accumulator, so AsyncLocalStorage never enables its promise hooks and nothing is counted.
 */
let counting = true;

export function setCostCounting(on: boolean): void {
  counting = on;
}

export function isCostCounting(): boolean {
  return counting;
}

/** Runs `work` with its requests counted to `accumulator` (just runs it when counting is off). */
export function meter<T>(accumulator: CostAccumulator, work: () => Promise<T>): Promise<T> {
  return counting ? current.run(accumulator, work) : work();
}

/** The accumulator of the current async context, if any. */
export function currentCost(): CostAccumulator | undefined {
  return current.getStore();
}

/** What the storage clients and the outbound client report to (createAzurePorts, host-services.ts). */
export const costMeter: StorageRequestMeter & { countOutboundCall(bytesSent: number, bytesReceived: number): void } = {
  count: (kind) => current.getStore()?.countRequest(kind),
  countOutboundCall: (bytesSent, bytesReceived) => current.getStore()?.countOutboundCall(bytesSent, bytesReceived),
};

/** SIGNALBOX_COST_COUNTING: `on` (the default) or `off`; anything else stops the start-up, naming the setting. */
export function costCountingFromEnv(env: Environment): boolean {
  const value = readSetting('SIGNALBOX_COST_COUNTING', env);
  if (value === undefined || value === 'on') return true;
  if (value === 'off') return false;
  throw new ValidationError(`SIGNALBOX_COST_COUNTING is invalid: \`on\` or \`off\`, not ${JSON.stringify(value)}`, [{ path: 'SIGNALBOX_COST_COUNTING', message: 'on or off' }]);
}
