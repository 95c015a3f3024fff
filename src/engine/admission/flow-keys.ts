/**
 * @module Reading and steering one key of a workflow's flow control: what runs, what waits and when the
 * next slot frees at the latest (`GET /api/flow/{workflowId}/keys/{key}`), and run-time overrides of the
 * definition's limit, each audited on a row of its own (who, when, old, new) beside the key's slots.
 */
import type { WorkflowDefinition } from '../definition/definition';
import { NotFoundError, ValidationError } from '../model/errors';
import type { Actor } from '../model/actor';
import type { FlowStore, OperationOptions } from '../ports';
import type { ConcurrencySlots, LimitOverride } from './concurrency-slots';
import { auditRows, capacityRows } from './flow-rows';
import { capacityRowKey, rowValue } from './state-capacity';
import { inAdmissionOrder } from './waiting-line';

/** At most this many audit entries are shown with a key (newest first). */
export const MAX_FLOW_AUDIT_ENTRIES = 20;

export interface FlowAuditEntry {
  readonly key: string;
  readonly by: string;
  readonly at: string;
  /** The limit before the change: the override's, else the definition's. */
  readonly old: number | null;
  /** The limit after it; null when the override was removed (the definition's applies again). */
  readonly new: number | null;
  /** The tenant the change was made in, when the host names one. */
  readonly tenantId?: string;
}

export interface FlowKeyView {
  readonly workflowId: string;
  readonly key: string;
  /** The limit in force: the override's, else the definition's; null when the workflow has no concurrency policy. */
  readonly limit: number | null;
  readonly definedLimit: number | null;
  readonly override?: LimitOverride;
  readonly running: readonly { readonly instanceId: string; readonly triggerId: string; readonly since: string; readonly expiresAt: string }[];
  /** In admission order (higher priority first, then arrival). */
  readonly queued: readonly { readonly instanceId: string; readonly triggerId: string; readonly priority: number; readonly arrivedAt: string }[];
  /**
   * When a slot frees at the latest while triggers wait (the earliest expiry of a running slot: sooner when its
   * application finishes); `now` when a slot is free; null when nothing waits.
   */
  readonly nextRelease: string | null;
  readonly audit: readonly FlowAuditEntry[];
  /** Per state with `capacity`: the instances counted in it under this key and the triggers waiting for room. */
  readonly capacity: readonly StateCapacityView[];
}

export interface StateCapacityView {
  readonly stateId: string;
  readonly limit: number;
  readonly members: readonly { readonly instanceId: string; readonly since: string }[];
  /** In admission order (higher priority first, then arrival); `deadline`: when its wait ends with `capacityTimeout`. */
  readonly queued: readonly { readonly instanceId: string; readonly triggerId: string; readonly priority: number; readonly arrivedAt: string; readonly deadline: string }[];
}

export class FlowKeys {
  constructor(
    private readonly store: FlowStore,
    private readonly slots: ConcurrencySlots,
    private readonly definitionOf: (workflowId: string, options: OperationOptions) => Promise<WorkflowDefinition | undefined>,
    private readonly now: () => Date,
  ) {}

  async view(workflowId: string, key: string, options: OperationOptions = {}): Promise<FlowKeyView> {
    const definition = await this.definition(workflowId, options);
    const [slots, audit, capacity] = await Promise.all([this.slots.read(workflowId, key, options), this.audit(workflowId, key, options), this.capacity(definition, key, options)]);
    const definedLimit = definition.flow?.concurrency?.limit ?? null;
    const limit = slots.limitOverride?.limit ?? definedLimit;
    const free = limit !== null && slots.running.length < limit;
    const earliest = slots.running.map((holder) => holder.expiresAt).sort()[0];
    return {
      workflowId,
      key,
      limit,
      definedLimit,
      ...(slots.limitOverride ? { override: slots.limitOverride } : {}),
      running: slots.running.map(({ instanceId, triggerId, since, expiresAt }) => ({ instanceId, triggerId, since, expiresAt })),
      queued: inAdmissionOrder(slots.queued).map(({ instanceId, triggerId, priority, arrivedAt }) => ({ instanceId, triggerId, priority, arrivedAt })),
      nextRelease: slots.queued.length === 0 ? null : free ? 'now' : (earliest ?? 'now'),
      audit,
      capacity,
    };
  }

  private async capacity(definition: WorkflowDefinition, key: string, options: OperationOptions): Promise<StateCapacityView[]> {
    const states = Object.entries(definition.states).filter(([, state]) => state.capacity);
    return Promise.all(
      states.map(async ([stateId, state]) => {
        const value = rowValue(await this.store.getRow(definition.id, capacityRows, capacityRowKey(stateId, key), options));
        return {
          stateId,
          limit: state.capacity!.limit,
          members: value.members.map(({ instanceId, since }) => ({ instanceId, since })),
          queued: inAdmissionOrder(value.queued).map(({ instanceId, id, priority, arrivedAt, deadline }) => ({ instanceId, triggerId: id, priority, arrivedAt, deadline })),
        };
      }),
    );
  }

  /**
   * Overrides the definition's limit for one key at run time (`limit` null: back to the definition's), and
   * records who changed it, when, from what to what. Answers the key as it now stands.
   */
  async setLimit(workflowId: string, key: string, limit: number | null, actor: Actor | undefined, options: OperationOptions & { tenantId?: string } = {}): Promise<FlowKeyView> {
    const definition = await this.definition(workflowId, options);
    const policy = definition.flow?.concurrency;
    if (!policy) throw new ValidationError(`Workflow "${workflowId}" has no concurrency policy to override`, [{ path: 'workflowId', message: 'the workflow has no `flow.concurrency`' }]);
    const by = actor ? actor.name || actor.id : 'anonymous';
    const previous = await this.slots.override(workflowId, key, limit ?? undefined, by, options);
    const at = this.now().toISOString();
    const entry: FlowAuditEntry = { key, by, at, old: previous?.limit ?? policy.limit, new: limit, ...(options.tenantId ? { tenantId: options.tenantId } : {}) };
    await this.store.putRow(workflowId, auditRows, `${auditPrefix(key)}${newestFirst(this.now().getTime())}|${globalThis.crypto.randomUUID()}`, entry, options);
    return this.view(workflowId, key, options);
  }

  private async audit(workflowId: string, key: string, options: OperationOptions): Promise<FlowAuditEntry[]> {
    // Row keys sort newest first (newestFirst), so the first page is the latest changes, however many there were.
    const rows = await this.store.listRows(workflowId, auditRows, auditPrefix(key), { ...options, maxRows: MAX_FLOW_AUDIT_ENTRIES });
    return rows.map((row) => row.value);
  }

  private async definition(workflowId: string, options: OperationOptions): Promise<WorkflowDefinition> {
    const definition = await this.definitionOf(workflowId, options);
    if (!definition) throw new NotFoundError(`Workflow "${workflowId}" does not exist`);
    return definition;
  }
}

let auditSequence = 0;

/**
 * A row-key part that sorts a later change first: the inverted time, then an inverted sequence of this
 * process, so two changes in one millisecond (a frozen test clock) still list in the order they were made.
 */
function newestFirst(timeInMs: number): string {
  auditSequence += 1;
  return `${String(9_999_999_999_999 - timeInMs).padStart(13, '0')}.${String(999_999_999 - (auditSequence % 1_000_000_000)).padStart(9, '0')}`;
}

/** Audit rows of one key within their kind (`auditRows`): its length first, so that no key's prefix is another key's. */
function auditPrefix(key: string): string {
  return `${key.length}:${key}|`;
}
