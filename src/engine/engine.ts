/**
 * @module The engine facade the hosts call: workflows, instances, and applying a trigger to one instance
 * under its lease (load → process → conditional save with history → dispatch the outbox). The pure parts
 * (processTrigger, createInstanceState, recoverInstanceState, cancelInstanceState) decide; this file does
 * the I/O through the ports, in the order that keeps the interest index a superset of the truth.
 */
import type { WorkflowVersion } from './definition';
import { validateDefinition } from './definition-validation';
import type { Effects } from './effects';
import { type EngineOptions, type ResolvedEngineOptions, resolveEngineOptions } from './engine-options';
import { TriggerOutcome } from './enums';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from './errors';
import { createInstanceInputSchema, createInstanceState } from './create-instance';
import { cancelInstanceState } from './cancel-instance';
import { recoverInstanceState, type ChangedInstance } from './recover-instance';
import { APPLIED_TRIGGER_MEMORY, HistoryEvent, type HistoryEntry, type Instance, type StoredInstance } from './instance';
import { plainInstance } from './instance-changes';
import type { InstanceResult } from './operation';
import type {
  HistoryStore,
  InstanceQuery,
  InstanceStore,
  InterestIndex,
  LeaseHandle,
  LeaseProvider,
  OperationOptions,
  Page,
  PageOptions,
  TriggerDispatcher,
  WorkflowStore,
  WorkflowSummary,
} from './ports';
import { processTrigger } from './process-trigger';
import { WorkflowVersionCache } from './workflow-version-cache';
import type { Trigger } from './trigger';
import { withSpan } from './tracing';
import { parseWith } from './validation';

export interface EnginePorts {
  readonly workflows: WorkflowStore;
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  readonly interests: InterestIndex;
  readonly leases: LeaseProvider;
  /**
   * Where raised triggers go. Without one, the engine delivers them in-process itself, after the lease
   * is released (queued in memory: suitable for tests and single-process hosting only).
   */
  readonly dispatcher?: TriggerDispatcher;
}

export interface UpdateWorkflowOptions extends OperationOptions {
  /** The latest version's ETag, or `*`. Absent: create version 1 if the workflow is new, else conflict. */
  ifMatch?: string;
}

const MAX_LOCAL_DELIVERIES_PER_DRAIN = 10_000;

export class Engine {
  readonly options: ResolvedEngineOptions;
  private readonly versions: WorkflowVersionCache;
  private readonly localQueue: Trigger[] = [];
  private readonly localSeen = new Set<string>();
  private draining = false;

  constructor(
    private readonly ports: EnginePorts,
    options: EngineOptions = {},
  ) {
    this.options = resolveEngineOptions(options);
    this.versions = new WorkflowVersionCache(ports.workflows, this.options.definitionCacheSize);
  }

  // ---- workflows ----------------------------------------------------------------------------------

  /** Validates and stores version 1. DefinitionInvalidError lists every problem; ConflictError if the id exists. */
  async createWorkflow(input: unknown, options?: OperationOptions): Promise<WorkflowVersion> {
    const definition = validateDefinition(input, this.options.registry);
    return this.versions.remember(await this.ports.workflows.create(definition, options));
  }

  /** PUT semantics: see UpdateWorkflowOptions. A body id different from `workflowId` is a ValidationError at `id`. */
  async updateWorkflow(workflowId: string, input: unknown, options: UpdateWorkflowOptions = {}): Promise<{ workflow: WorkflowVersion; created: boolean }> {
    let body = input;
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const id = (body as { id?: unknown }).id;
      if (id !== undefined && id !== workflowId) {
        throw new ValidationError('The workflow definition is invalid', [{ path: 'id', message: `the body's id "${String(id)}" differs from the workflow id "${workflowId}" in the request` }]);
      }
      body = { ...body, id: workflowId };
    }
    const definition = validateDefinition(body, this.options.registry);
    const { ifMatch, ...rest } = options;
    if (!ifMatch) {
      const existing = await this.ports.workflows.get(workflowId, rest);
      if (existing) throw new ConflictError(`Workflow "${workflowId}" exists: send If-Match with its ETag (or *) to add a version`);
      return { workflow: this.versions.remember(await this.ports.workflows.create(definition, rest)), created: true };
    }
    try {
      return { workflow: this.versions.remember(await this.ports.workflows.update(definition, { ...rest, ifMatch })), created: false };
    } catch (error) {
      // If-Match on something absent fails the precondition (HTTP semantics), it does not create.
      if (error instanceof NotFoundError) throw new PreconditionFailedError(`Workflow "${workflowId}" does not exist, so If-Match cannot match`, { cause: error });
      throw error;
    }
  }

  /** The latest version, or the given one. NotFoundError if absent. */
  async getWorkflow(workflowId: string, version?: number, options?: OperationOptions): Promise<WorkflowVersion> {
    if (version !== undefined) return this.versions.get(workflowId, version, options);
    const latest = await this.ports.workflows.get(workflowId, options);
    if (!latest) throw new NotFoundError(`Workflow "${workflowId}" does not exist`);
    return this.versions.remember(latest);
  }

  listWorkflows(pageOptions?: PageOptions): Promise<Page<WorkflowSummary>> {
    return this.ports.workflows.list(pageOptions);
  }

  // ---- instances ----------------------------------------------------------------------------------

  /**
   * Creates an instance of the latest version: ValidationError for bad input, NotFoundError for an
   * unknown workflow, ConflictError for a duplicate id. An initial entry condition that is false or an
   * entry action that fails creates it `faulted`.
   */
  createInstance(input: unknown, options: OperationOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.createInstance', {}, async (span) => {
      const instance = await this.createInstanceNow(input, options);
      span.setAttributes({ instanceId: instance.id, workflowId: instance.workflowId, status: instance.status });
      return instance;
    });
  }

  private async createInstanceNow(input: unknown, options: OperationOptions): Promise<StoredInstance> {
    const parsed = parseWith(createInstanceInputSchema, input, 'The instance request is invalid');
    const workflow = await this.ports.workflows.get(parsed.workflowId, options);
    if (!workflow) throw new NotFoundError(`Workflow "${parsed.workflowId}" does not exist`);
    this.versions.remember(workflow);
    const instanceId = parsed.instanceId ?? this.options.newId();
    if (await this.ports.instances.get(instanceId, options)) throw new ConflictError(`Instance "${instanceId}" exists`);
    const created = await createInstanceState(workflow, { instanceId, context: parsed.context }, this.effects(options?.abortSignal));
    // Index rows first: the index may hold more than the truth, never less.
    await this.ports.interests.add(instanceId, created.instance.interests, options);
    const stored = await this.ports.instances.create(created.instance, { history: [created.historyEntry] }, options);
    const flushed = await this.flushOutbox(stored, undefined, options);
    await this.drainLocal();
    return flushed;
  }

  async getInstance(instanceId: string, options?: OperationOptions): Promise<StoredInstance> {
    const instance = await this.ports.instances.get(instanceId, options);
    if (!instance) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
    return instance;
  }

  listInstances(query: InstanceQuery = {}, pageOptions?: PageOptions): Promise<Page<StoredInstance>> {
    return this.ports.instances.query(query, pageOptions);
  }

  /** Oldest first. NotFoundError if the instance does not exist. */
  async getHistory(instanceId: string, pageOptions?: PageOptions): Promise<Page<HistoryEntry>> {
    await this.getInstance(instanceId, pageOptions);
    return this.ports.history.list(instanceId, pageOptions);
  }

  /** Instance ids interested in any of the subjects (a superset: each is re-checked under its lease). */
  findCandidates(subjects: readonly string[], pageOptions?: PageOptions): Promise<Page<string>> {
    return this.ports.interests.findCandidates(subjects, pageOptions);
  }

  /**
   * Applies a trigger to one instance under its lease. Workflow faults are outcomes; lease and storage
   * failures are thrown (retryable ones per isRetryable), and a retry is safe: the trigger id is applied
   * at most once.
   */
  applyTrigger(instanceId: string, trigger: Trigger, options: OperationOptions = {}): Promise<InstanceResult> {
    return withSpan('Engine.applyTrigger', { instanceId, triggerId: trigger.id }, async (span) => {
      const result = await this.applyTriggerUnderLease(instanceId, trigger, options);
      span.setAttribute('outcome', result.outcome);
      return result;
    });
  }

  private async applyTriggerUnderLease(instanceId: string, trigger: Trigger, options: OperationOptions): Promise<InstanceResult> {
    const result = await this.underLease(instanceId, options, async (lease) => {
      for (let attempt = 1; attempt <= this.options.maxSaveAttempts; attempt++) {
        let stored = await this.ports.instances.get(instanceId, options);
        if (!stored) return { instanceId, outcome: TriggerOutcome.notFound };
        // A crash between an earlier save and its dispatch left triggers in the outbox: send them first.
        stored = await this.flushOutbox(stored, lease, options);
        const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
        const processed = await processTrigger(definition, stored, trigger, this.effects(lease.signal));
        if (!processed.historyEntry) return processed.result;
        const saved = await this.save(stored, processed.instance, processed.historyEntry, lease, options);
        if (!saved) continue; // someone else wrote: reload and reprocess
        await this.flushOutbox(saved, lease, options);
        return processed.result;
      }
      throw new PreconditionFailedError(`Instance "${instanceId}" kept changing; gave up after ${this.options.maxSaveAttempts} attempts`);
    });
    await this.drainLocal();
    return result;
  }

  /**
   * What an already applied trigger did to an instance, read back from its history: the answer to give
   * for a `duplicate` delivery of the same trigger (a retried activity, an operation resumed after a
   * crash). Undefined if the instance or the entry is not found. The applied-trigger memory is bounded,
   * so only the recent entries are read.
   */
  async appliedResult(instanceId: string, triggerId: string, options: OperationOptions = {}): Promise<InstanceResult | undefined> {
    const stored = await this.ports.instances.get(instanceId, options);
    if (!stored || !stored.appliedTriggerIds.includes(triggerId)) return undefined;
    // Each remembered trigger id wrote one entry; creation, recovery and cancellation wrote others.
    const fromSequence = Math.max(0, stored.historyLength - 4 * APPLIED_TRIGGER_MEMORY);
    let continuationToken: string | undefined;
    do {
      const page = await this.ports.history.list(instanceId, { ...options, fromSequence, maxPageSize: 1000, ...(continuationToken ? { continuationToken } : {}) });
      const entry = page.items.find((item) => item.triggerId === triggerId);
      if (entry) {
        const outcome = entry.event === HistoryEvent.faulted ? TriggerOutcome.faulted : TriggerOutcome.transitioned;
        return {
          instanceId,
          outcome,
          ...(entry.transitionId ? { transitionId: entry.transitionId } : {}),
          ...(entry.fromStateId ? { fromStateId: entry.fromStateId } : {}),
          toStateId: entry.toStateId,
          ...(outcome === TriggerOutcome.faulted && stored.fault?.triggerId === triggerId ? { error: stored.fault.message } : {}),
        };
      }
      continuationToken = page.continuationToken;
    } while (continuationToken);
    return undefined;
  }

  /** Returns a faulted instance to `stateId`, re-running its entry conditions and actions. */
  recover(instanceId: string, stateId: string, options: OperationOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.recover', { instanceId, stateId }, () => this.recoverNow(instanceId, stateId, options));
  }

  private async recoverNow(instanceId: string, stateId: string, options: OperationOptions): Promise<StoredInstance> {
    const result = await this.change(instanceId, options, async (stored, lease) => {
      const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
      return recoverInstanceState(definition, stored, stateId, this.effects(lease.signal));
    });
    await this.drainLocal();
    return result;
  }

  /** Cancels an instance; ConflictError if it is complete or cancelled already. */
  cancel(instanceId: string, options: OperationOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.cancel', { instanceId }, () => this.change(instanceId, options, async (stored) => cancelInstanceState(stored, this.options.clock)));
  }

  /**
   * Offers a trigger to every candidate, one at a time (in-process delivery; the hosts fan out through
   * durable orchestrations instead). Returns each instance's result.
   */
  async publish(trigger: Trigger, options: OperationOptions = {}): Promise<InstanceResult[]> {
    const results: InstanceResult[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.findCandidates(trigger.subjects, { ...options, maxPageSize: 1000, ...(continuationToken ? { continuationToken } : {}) });
      for (const instanceId of page.items) results.push(await this.applyTrigger(instanceId, trigger, options));
      continuationToken = page.continuationToken;
    } while (continuationToken);
    return results;
  }

  // ---- internals ----------------------------------------------------------------------------------

  private effects(signal?: AbortSignal): Effects {
    const { clock, newId, http, logger, registry } = this.options;
    return { now: () => clock.now(), newId, http, log: logger, registry, ...(signal ? { signal } : {}) };
  }

  private underLease<T>(instanceId: string, options: OperationOptions, work: (lease: LeaseHandle) => Promise<T>): Promise<T> {
    return this.ports.leases.withLease(instanceId, work, {
      leaseDurationInSeconds: this.options.leaseDurationInSeconds,
      maxWaitInMs: this.options.maxLeaseWaitInMs,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  }

  /** Recovery and cancellation: load, decide (may throw a request error), save, dispatch; under the lease. */
  private change(instanceId: string, options: OperationOptions, decide: (stored: StoredInstance, lease: LeaseHandle) => Promise<ChangedInstance>): Promise<StoredInstance> {
    return this.underLease(instanceId, options, async (lease) => {
      for (let attempt = 1; attempt <= this.options.maxSaveAttempts; attempt++) {
        let stored = await this.ports.instances.get(instanceId, options);
        if (!stored) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
        stored = await this.flushOutbox(stored, lease, options);
        const changed = await decide(stored, lease);
        const saved = await this.save(stored, changed.instance, changed.historyEntry, lease, options);
        if (saved) return this.flushOutbox(saved, lease, options);
      }
      throw new PreconditionFailedError(`Instance "${instanceId}" kept changing; gave up after ${this.options.maxSaveAttempts} attempts`);
    });
  }

  /**
   * New subjects into the index, the conditional save with its history entry, then stale subjects out.
   * Returns undefined when the ETag no longer matched (the caller reloads).
   */
  private async save(stored: StoredInstance, next: Instance, entry: HistoryEntry, lease: LeaseHandle, options: OperationOptions): Promise<StoredInstance | undefined> {
    const before = new Set(stored.interests);
    const after = new Set(next.interests);
    const added = next.interests.filter((subject) => !before.has(subject));
    const removed = stored.interests.filter((subject) => !after.has(subject));
    if (added.length) await this.ports.interests.add(stored.id, added, options);
    lease.assertHeld();
    let saved: StoredInstance;
    try {
      saved = await this.ports.instances.save(next, { history: [entry] }, { ...options, ifMatch: stored.etag });
    } catch (error) {
      if (error instanceof PreconditionFailedError) return undefined;
      throw error;
    }
    if (removed.length) {
      try {
        await this.ports.interests.remove(stored.id, removed, options);
      } catch (error) {
        // Harmless: a stale row only offers a trigger the instance will answer `notInterested`.
        this.options.logger.warn('Could not remove stale interest rows', { instanceId: stored.id, error: String(error) });
      }
    }
    return saved;
  }

  /** Dispatches the outbox (idempotent by trigger id), then clears it with one conditional save. */
  private async flushOutbox(stored: StoredInstance, lease: LeaseHandle | undefined, options: OperationOptions): Promise<StoredInstance> {
    if (stored.pendingTriggers.length === 0) return stored;
    for (const trigger of stored.pendingTriggers) await this.dispatch(trigger, options);
    lease?.assertHeld();
    try {
      return await this.ports.instances.save({ ...plainInstance(stored), pendingTriggers: [] }, {}, { ...options, ifMatch: stored.etag });
    } catch (error) {
      // Someone wrote in between; the triggers were dispatched and a repeat is idempotent, so it is fine.
      if (error instanceof PreconditionFailedError) return stored;
      throw error;
    }
  }

  private async dispatch(trigger: Trigger, options: OperationOptions): Promise<void> {
    if (this.ports.dispatcher) {
      await this.ports.dispatcher.dispatch(trigger, options);
      return;
    }
    if (this.localSeen.has(trigger.id)) return;
    if (this.localSeen.size > 100_000) this.localSeen.clear();
    this.localSeen.add(trigger.id);
    this.localQueue.push(trigger);
  }

  /** In-process delivery of raised triggers (no dispatcher), outside any lease so self-triggers cannot deadlock. */
  private async drainLocal(): Promise<void> {
    if (this.ports.dispatcher || this.draining || this.localQueue.length === 0) return;
    this.draining = true;
    try {
      for (let delivered = 0; this.localQueue.length > 0; delivered++) {
        if (delivered >= MAX_LOCAL_DELIVERIES_PER_DRAIN) {
          this.options.logger.error('Raised triggers keep raising triggers; in-process delivery stopped', { dropped: this.localQueue.length });
          this.localQueue.length = 0;
          break;
        }
        await this.publish(this.localQueue.shift()!);
      }
    } finally {
      this.draining = false;
    }
  }
}
