/**
 * @module The engine facade: workflows (workflow-service.ts), instances through the one run loop
 * (instance-runtime.ts), and the relay of the rows each change wrote, after the lease is released
 * (outbox-relay.ts). It holds no mutable wiring: a host that delivers raised triggers its own way takes
 * `engine.withDelivery(handlers)`, a view sharing everything but the delivery. Without one, raised
 * triggers are published in-process (tests, the library, single-process hosting).
 */
import type { WorkflowVersion } from './definition';
import { createInstanceInputSchema, type CreateInstanceInput, type NewInstance } from './decide-create';
import { type EngineOptions, type ResolvedEngineOptions, resolveEngineOptions } from './engine-options';
import { TriggerOutcome } from './enums';
import { NotFoundError, isRetryable } from './errors';
import type { HistoryEntry, StoredInstance } from './instance';
import { InstanceRuntime, type Decided } from './instance-runtime';
import type { InstanceResult } from './operation';
import { OutboxRelay, type OutboxHandlers } from './outbox-relay';
import { InProcessTimers } from './in-process-timers';
import { pagedList } from './paging';
import { timerTrigger, type DueTimer } from './timers';
import type {
  DueTimerIndex,
  HistoryStore,
  InstanceQuery,
  InstanceStore,
  InterestIndex,
  LeaseProvider,
  OperationOptions,
  OutboxStore,
  Page,
  PageOptions,
  WorkflowStore,
  WorkflowSummary,
} from './ports';
import type { Trigger } from './trigger';
import { withSpan } from './tracing';
import { parseWith } from './validation';
import { WorkflowService } from './workflow-service';

export interface EnginePorts {
  readonly workflows: WorkflowStore;
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  /** Where changes' outbox rows are read and deleted (the instance store: they share a partition). */
  readonly outbox: OutboxStore;
  readonly interests: InterestIndex;
  readonly leases: LeaseProvider;
  /** Armed timers by due time, for hosts that schedule timers from storage (the local server). */
  readonly dueTimers?: DueTimerIndex;
}

interface EngineParts {
  readonly ports: EnginePorts;
  readonly options: ResolvedEngineOptions;
  readonly workflows: WorkflowService;
  readonly runtime: InstanceRuntime;
}

export class Engine {
  readonly options: ResolvedEngineOptions;
  readonly workflows: WorkflowService;
  readonly runtime: InstanceRuntime;
  readonly relay: OutboxRelay;
  private readonly ports: EnginePorts;

  constructor(ports: EnginePorts, options?: EngineOptions);
  constructor(parts: EngineParts, options: undefined, handlers: OutboxHandlers);
  constructor(portsOrParts: EnginePorts | EngineParts, options: EngineOptions = {}, handlers?: OutboxHandlers) {
    if ('runtime' in portsOrParts) {
      ({ ports: this.ports, options: this.options, workflows: this.workflows, runtime: this.runtime } = portsOrParts);
    } else {
      this.ports = portsOrParts;
      this.options = resolveEngineOptions(options);
      this.workflows = new WorkflowService(this.ports.workflows, this.options.registry, this.options.definitionCacheSize);
      this.runtime = new InstanceRuntime(this.ports, this.workflows.versions, this.options);
    }
    this.relay = new OutboxRelay(this.ports.outbox, handlers ?? this.inProcessDelivery());
  }

  /** Without a host: raised triggers are published, and timers fired, in this process. */
  private inProcessDelivery(): OutboxHandlers {
    const timers = new InProcessTimers(this.options.clock, (timer) => this.fireTimer(timer).then(() => undefined), this.options.logger);
    return {
      trigger: async (row) => void (await this.publish(row.payload)),
      timer: (row) => timers.arm(row.payload),
    };
  }

  /** The same engine (stores, caches, run loop) delivering outbox rows through `handlers`. */
  withDelivery(handlers: OutboxHandlers): Engine {
    return new Engine({ ports: this.ports, options: this.options, workflows: this.workflows, runtime: this.runtime }, undefined, handlers);
  }

  // ---- workflows ----------------------------------------------------------------------------------

  /** Validates and stores version 1. DefinitionInvalidError lists every problem; ConflictError if the id exists. */
  async createWorkflow(input: unknown, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.workflows.create(this.workflows.validate(input), options);
  }

  /** Validates and adds a version; `ifMatch` is the latest version's ETag or `*`. */
  async addWorkflowVersion(input: unknown, options: OperationOptions & { ifMatch: string }): Promise<WorkflowVersion> {
    return this.workflows.addVersion(this.workflows.validate(input), options);
  }

  /** The latest version, or the given one. NotFoundError if absent. */
  getWorkflow(workflowId: string, version?: number, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.workflows.get(workflowId, version, options);
  }

  listWorkflows(pageOptions?: PageOptions): Promise<Page<WorkflowSummary>> {
    return this.workflows.list(pageOptions);
  }

  // ---- instances ----------------------------------------------------------------------------------

  /**
   * Creates an instance of the latest version: ValidationError for bad input, NotFoundError for an
   * unknown workflow, ConflictError for a duplicate id. An initial entry condition that is false or an
   * entry action that fails creates it `faulted`.
   */
  createInstance(input: CreateInstanceInput, options: OperationOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.createInstance', {}, async (span) => {
      // Checked again: library callers may pass anything (a route has parsed it already).
      const parsed = parseWith(createInstanceInputSchema, input, 'The instance request is invalid');
      const workflow = await this.workflows.find(parsed.workflowId, options);
      if (!workflow) throw new NotFoundError(`Workflow "${parsed.workflowId}" does not exist`);
      const request: NewInstance = { instanceId: parsed.instanceId ?? this.options.newId(), context: parsed.context };
      const created = await this.runtime.create(workflow, request, options);
      span.setAttributes({ instanceId: created.instance.id, workflowId: created.instance.workflowId, status: created.instance.status });
      await this.relayAfter(created, options);
      return created.instance;
    });
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
   * Applies a trigger to one instance under its lease, then relays what the change raised. Workflow
   * faults are outcomes; lease and storage failures are thrown (retryable ones per isRetryable), and a
   * retry is safe: the trigger id is applied at most once, and a repeat answers `duplicate` with what it did.
   */
  applyTrigger(instanceId: string, trigger: Trigger, options: OperationOptions = {}): Promise<InstanceResult> {
    return withSpan('Engine.applyTrigger', { instanceId, triggerId: trigger.id }, async (span) => {
      const decided = await this.runtime.applyTrigger(instanceId, trigger, options);
      const result = decided.decision?.result ?? { instanceId, outcome: TriggerOutcome.notFound };
      span.setAttribute('outcome', result.outcome);
      await this.relayAfter(decided, options);
      return result;
    });
  }

  /** Returns a faulted instance to `stateId`, re-running its entry conditions and actions. */
  recover(instanceId: string, stateId: string, options: OperationOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.recover', { instanceId, stateId }, async () => this.changed(instanceId, await this.runtime.recover(instanceId, stateId, options), options));
  }

  /** Cancels an instance; ConflictError if it is complete or cancelled already. */
  cancel(instanceId: string, options: OperationOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.cancel', { instanceId }, async () => this.changed(instanceId, await this.runtime.cancel(instanceId, options), options));
  }

  /**
   * Offers a trigger to every candidate, one at a time (in-process delivery; the hosts fan out through
   * their operation runners instead). Returns each instance's result.
   */
  async publish(trigger: Trigger, options: OperationOptions = {}): Promise<InstanceResult[]> {
    const results: InstanceResult[] = [];
    for await (const instanceId of pagedList((page) => this.findCandidates(trigger.subjects, page), { ...options, maxPageSize: 1000 })) {
      results.push(await this.applyTrigger(instanceId, trigger, options));
    }
    return results;
  }

  /**
   * Applies a due timer's trigger to its instance (the hosts submit it as an operation instead, so it is
   * visible like any trigger). A stale timer answers `notInterested` and saves nothing.
   */
  fireTimer(timer: DueTimer, options: OperationOptions = {}): Promise<InstanceResult> {
    return this.applyTrigger(timer.instanceId, timerTrigger(timer), options);
  }

  /** Delivers the rows of start-up: every outbox row a crash left (returns how many were delivered). */
  relayLeftovers(options: PageOptions = {}): Promise<number> {
    return this.relay.sweep(this.options.logger, options);
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async changed(instanceId: string, decided: Decided, options: OperationOptions): Promise<StoredInstance> {
    if (!decided.instance) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
    await this.relayAfter(decided, options);
    return decided.instance;
  }

  /**
   * The lease is released: deliver the rows, and remember the instance is clear when all went. A
   * retryable failure is thrown, so the caller's retry (answered `duplicate`) relays the rows again from
   * the load; any other is logged, not thrown, since the change itself is saved: the rows wait for the
   * next load of the instance or the start-up sweep.
   */
  private async relayAfter(decided: Decided, options: OperationOptions): Promise<void> {
    if (decided.outbox.length === 0 || !decided.instance) return;
    try {
      if (await this.relay.relay(decided.instance.id, decided.outbox, options)) this.runtime.relayedAll(decided);
    } catch (error) {
      if (isRetryable(error)) throw error;
      this.options.logger.error('Could not deliver outbox rows; they stay for the next load or start', { instanceId: decided.instance.id, error: String(error) });
    }
  }
}
