/**
 * @module The reads behind "why is it stuck?": what `whyWaiting` (analysis/why-waiting.ts, pure) needs
 * beside the instance (its definition, its lease, its running children, the entry that suspended it),
 * and a workflow's instances page by page for the tally. It reads only: nothing here takes a lease or
 * changes anything, so an answer may be stale by the time it is read.
 */
import { whyWaiting, MAX_CHILDREN_LISTED, type RoomWaitPlace, type RunningChild, type SlotQueuePlace, type WaitingAnswer, type WaitingFacts } from '../analysis/why-waiting';
import type { WorkflowDefinition } from '../definition/definition';
import type { FlowStore } from '../ports/flow-store';
import { keySlotsOfRow } from '../admission/concurrency-slots';
import { capacityRows, slotRows } from '../admission/flow-rows';
import { capacityRowKey, rowValue } from '../admission/state-capacity';
import { inAdmissionOrder } from '../admission/waiting-line';
import { isAutomaticTransition } from '../definition/definition';
import { WaitingTally, MAX_WAITING_SCAN, type WaitingSummary } from '../analysis/waiting-summary';
import type { Clock } from './engine-options';
import { InstanceStatus } from '../model/enums';
import { internalKindOf } from '../model/internal-trigger';
import { HistoryEvent, type Instance } from '../model/instance';
import type { HistoryStore, InstanceStore, LeaseProvider, OperationOptions } from '../ports/ports';
import type { WorkflowVersionCache } from './workflow-version-cache';

/** Children of one instance read at most to count those still running (the first MAX_CHILDREN_LISTED are named). */
export const MAX_CHILDREN_SCANNED = 1000;
/** Instances read per page by the workflow tally. */
export const WAITING_SCAN_PAGE_SIZE = 500;
/**
 * Concurrency keys' rows read to find an instance's queued triggers: its triggers' keys are not known
 * without evaluating the key over each trigger, so the rows are listed; past this many keys the
 * answer names what it found among them (a key's row is small, and a list request returns up to 1,000).
 */
export const MAX_SLOT_KEYS_SCANNED = 1000;

export interface WaitingPorts {
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  readonly leases: LeaseProvider;
  /** Flow-control rows: without them, no concurrency queue is looked at. */
  readonly flow?: FlowStore;
}

const endedStatuses: ReadonlySet<InstanceStatus> = new Set([InstanceStatus.complete, InstanceStatus.cancelled]);
/** The statuses the tally reads (final instances are never stuck): one query each, so that ended instances cost nothing. */
const notFinalStatuses = [InstanceStatus.faulted, InstanceStatus.suspended, InstanceStatus.waiting, InstanceStatus.initializing];

export class WaitingService {
  constructor(
    private readonly ports: WaitingPorts,
    private readonly versions: WorkflowVersionCache,
    private readonly clock: Clock,
  ) {}

  /** Why `instance` is not moving, with its lease, children and suspension looked up. */
  async explain(instance: Instance, options: OperationOptions = {}): Promise<WaitingAnswer> {
    const { definition } = await this.versions.get(instance.workflowId, instance.workflowVersion, options);
    if (endedStatuses.has(instance.status)) return whyWaiting(instance, definition, { now: this.clock.now() });
    const [lease, runningChildren, suspension, slotQueue, roomQueue] = await Promise.all([
      this.ports.leases.inspect?.(instance.id, options),
      instance.startedChildren ? this.runningChildren(instance.id, options) : undefined,
      instance.status === InstanceStatus.suspended ? this.suspension(instance, options) : undefined,
      this.slotQueue(instance, definition, options),
      this.roomQueue(instance, definition, options),
    ]);
    const facts: WaitingFacts = {
      now: this.clock.now(),
      ...(lease ? { lease } : {}),
      ...(runningChildren ? { runningChildren } : {}),
      ...(suspension ? { suspension } : {}),
      ...(slotQueue?.length ? { slotQueue } : {}),
      ...(roomQueue?.length ? { roomQueue } : {}),
    };
    return whyWaiting(instance, definition, facts);
  }

  /**
   * A workflow's instances that are not final, counted per class and state. Reads the instance rows only
   * (up to MAX_WAITING_SCAN): leases and children, one request per instance, are left to `explain`.
   */
  async summarize(workflowId: string, options: OperationOptions = {}): Promise<WaitingSummary> {
    const tally = new WaitingTally();
    const now = this.clock.now();
    let read = 0;
    let truncated = false;
    scan: for (const status of notFinalStatuses) {
      for await (const page of this.ports.instances.query({ workflowId, status }).byPage({ maxPageSize: WAITING_SCAN_PAGE_SIZE })) {
        for (const instance of page.items) {
          if (instance.deleting) continue;
          if (read === MAX_WAITING_SCAN) {
            truncated = true;
            break scan;
          }
          read++;
          const { definition } = await this.versions.get(instance.workflowId, instance.workflowVersion, options);
          tally.add(whyWaiting(instance, definition, { now }));
        }
      }
    }
    return tally.summary(workflowId, truncated);
  }

  private async runningChildren(instanceId: string, options: OperationOptions): Promise<{ items: RunningChild[]; more: number }> {
    const items: RunningChild[] = [];
    let more = 0;
    let read = 0;
    for await (const child of this.ports.instances.query({ parentId: instanceId }, { ...options, maxPageSize: 100 })) {
      if (++read > MAX_CHILDREN_SCANNED) break;
      if (child.deleting || endedStatuses.has(child.status)) continue;
      if (items.length < MAX_CHILDREN_LISTED) items.push({ instanceId: child.id, workflowId: child.workflowId, stateId: child.stateId, status: child.status });
      else more++;
    }
    return { items, more };
  }

  /**
   * Its triggers waiting for a concurrency slot, from the workflow's key rows (one list request, made only
   * when the workflow has a concurrency policy and the host a flow store).
   */
  private async slotQueue(instance: Instance, definition: WorkflowDefinition, options: OperationOptions): Promise<SlotQueuePlace[] | undefined> {
    const policy = definition.flow?.concurrency;
    if (!policy || !this.ports.flow) return undefined;
    const rows = await this.ports.flow.listRows(instance.workflowId, slotRows, '', { ...options, maxRows: MAX_SLOT_KEYS_SCANNED });
    const now = this.clock.now();
    return rows.flatMap((row) => {
      const { key, slots } = keySlotsOfRow(row, now);
      const queue = inAdmissionOrder(slots.queued);
      return queue.flatMap((waiter, index): SlotQueuePlace[] =>
        waiter.instanceId === instance.id
          ? [
              {
                key,
                triggerId: waiter.triggerId,
                priority: waiter.priority,
                arrivedAt: waiter.arrivedAt,
                position: index + 1,
                queuedOnKey: queue.length,
                running: slots.running.length,
                limit: slots.limitOverride?.limit ?? policy.limit,
              },
            ]
          : [],
      );
    });
  }

  /**
   * Its waits for room in full states its state's automatic transitions lead to, from those states' rows
   * (one list request per such state, made only when there is one and the host has a flow store).
   */
  private async roomQueue(instance: Instance, definition: WorkflowDefinition, options: OperationOptions): Promise<RoomWaitPlace[] | undefined> {
    const flow = this.ports.flow;
    const state = definition.states[instance.stateId];
    if (!flow || !state) return undefined;
    const targets = [
      ...new Set(state.transitions.filter((transition) => isAutomaticTransition(transition) && definition.states[transition.targetStateId]?.capacity).map((transition) => transition.targetStateId)),
    ];
    const places = await Promise.all(
      targets.map(async (stateId) => {
        const prefix = capacityRowKey(stateId, '');
        const limit = definition.states[stateId]!.capacity!.limit;
        const rows = await flow.listRows(instance.workflowId, capacityRows, prefix, { ...options, maxRows: MAX_SLOT_KEYS_SCANNED });
        return rows.flatMap((row) => {
          const value = rowValue(row);
          const queue = inAdmissionOrder(value.queued);
          return queue.flatMap((waiter, index): RoomWaitPlace[] =>
            waiter.instanceId === instance.id && internalKindOf(waiter.trigger, 'capacityRoom')?.stateId === instance.stateId
              ? [
                  {
                    stateId,
                    key: row.key.slice(prefix.length),
                    position: index + 1,
                    queuedOnKey: queue.length,
                    members: value.members.length,
                    limit,
                    arrivedAt: waiter.arrivedAt,
                    deadline: waiter.deadline,
                  },
                ]
              : [],
          );
        });
      }),
    );
    return places.flat();
  }

  /** The entry that suspended it: the last one while it stays suspended (held notifications write none). */
  private async suspension(instance: Instance, options: OperationOptions): Promise<{ at: string; by?: string } | undefined> {
    for await (const entry of this.ports.history.list(instance.id, { ...options, fromSequence: Math.max(0, instance.historyLength - 1), maxPageSize: 1 })) {
      return entry.event === HistoryEvent.suspended ? { at: entry.at, ...(entry.by !== undefined ? { by: entry.by } : {}) } : undefined;
    }
    return undefined;
  }
}
