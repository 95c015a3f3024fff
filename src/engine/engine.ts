/**
 * @module The engine facade: workflows (workflow-service.ts), instances through the one run loop
 * (instance-runtime.ts), and the relay of the rows each change wrote, after the lease is released
 * (outbox-relay.ts). It holds no mutable wiring: a host that delivers raised triggers its own way takes
 * `engine.withDelivery(handlers)`, a view sharing everything but the delivery. Without one, raised
 * triggers are published in-process (tests, the library, single-process hosting).
 */
import type { WorkflowDefinition, WorkflowDefinitionInput, WorkflowVersion } from './definition/definition';
import type { DryRunResult } from './decide/dry-run';
import type { RecoveryRepair } from './decide/decide-recover';
import { createInstanceInputSchema, type CreateInstanceInput, type NewInstance } from './decide/decide-create';
import { type EngineOptions, type ResolvedEngineOptions, resolveEngineOptions } from './runtime/engine-options';
import { TriggerOutcome } from './model/enums';
import { ConflictError, NotFoundError, isRetryable } from './model/errors';
import { EventDeliveryService, type AttemptResult, type EventDeliveryTarget } from './runtime/event-delivery';
import { EventDispatcher } from './runtime/event-dispatcher';
import type { LifecycleEventRecord } from './decide/lifecycle-events';
import type { StartInstancePayload } from './model/outbox';
import { MigrationsAndBulkActions } from './migrations-and-bulk-actions';
import type { HistoryEntry, StoredInstance } from './model/instance';
import { InstanceRuntime, type ApplyTriggerOptions, type AppliedDecision } from './runtime/instance-runtime';
import { accumulateResults, emptyTotals, type InstanceResult } from './operations/operation';
import { FanOut, failureReason } from './operations/fan-out';
import { OutboxRelay, type OutboxHandlers } from './runtime/outbox-relay';
import { InProcessTimers } from './runtime/in-process-timers';
import { onePage } from './ports/paging';
import { ORPHAN_GRACE_PERIOD_MS } from './ports/ports';
import { timerTrigger, type DueTimer } from './decide/timers';
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
  EventStore,
} from './ports/ports';
import type { Trigger } from './model/trigger';
import type { TriggerOffer } from './decide/offers';
import { withSpan } from './runtime/tracing';
import { parseWith } from './model/validation';
import { WorkflowService } from './runtime/workflow-service';
import { InstanceReads } from './runtime/instance-reads';
import { LifecycleEventOperations } from './runtime/lifecycle-event-operations';
import { WaitingService } from './runtime/waiting-service';
import { createClaimingKeys } from './runtime/unique-keys';
import type { WaitingAnswer } from './analysis/why-waiting';
import type { WaitingSummary } from './analysis/waiting-summary';
import type { Actor } from './model/actor';
import type { SearchIndexStore } from './search/search-port';
import type { SearchField } from './definition/search-indexes';
import { InstanceSearch, type CountRequest, type CountResult, type SearchPage, type SearchRequest } from './search/instance-search';
import type { FlowStore } from './ports/flow-store';
import { FlowKeys } from './runtime/flow-keys';
import type { CapacityOffer } from './runtime/state-capacity';

/** A dry run of a broadcast trigger decides for at most this many candidates. */

/** Options of a change someone asks for: `actor`, who (actor.ts), is recorded on its history entry and event. */
export type ActingOptions = OperationOptions & { readonly actor?: Actor };

/** A creation's options: who acts, and whether its follow-up work (children, raised triggers, events) is awaited. */
export type CreateOptions = ActingOptions & {
  /**
   * `afterAnswer`: the creation returns once the instance is saved, and its outbox is relayed after (the HTTP
   * routes: a workflow whose entry starts children of itself must not hold its creator's request while the
   * causal budget runs out). Rows a crash leaves are relayed by the next load or the sweep. @default 'awaited'
   */
  readonly followUp?: 'awaited' | 'afterAnswer';
};
export const MAX_DRY_RUN_CANDIDATES = 100;

export interface EnginePorts {
  readonly workflows: WorkflowStore;
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  /** Where changes' outbox rows are read and deleted (the instance store: they share a partition). */
  readonly outbox: OutboxStore;
  readonly interests: InterestIndex;
  readonly leases: LeaseProvider;
  /** Lifecycle event records (the instance store: they share a partition). Without it, events cannot be listed or delivered. */
  readonly events?: EventStore;
  /** Armed timers by due time, for hosts that schedule timers from storage (the local server). */
  readonly dueTimers?: DueTimerIndex;
  /** The search index (search/search-port.ts): without it, instances are found only by the listing's columns. */
  readonly search?: SearchIndexStore;
  /** Flow-control rows (concurrency slots, overrides): without it, `flow.concurrency` is not enforced. */
  readonly flow?: FlowStore;
}

interface EngineParts {
  readonly ports: EnginePorts;
  readonly options: ResolvedEngineOptions;
  readonly workflows: WorkflowService;
  readonly runtime: InstanceRuntime;
  readonly eventDelivery?: EventDeliveryService;
  readonly dispatcher?: EventDispatcher;
}

export class Engine {
  readonly options: ResolvedEngineOptions;
  readonly workflows: WorkflowService;
  readonly runtime: InstanceRuntime;
  readonly relay: OutboxRelay;
  private readonly ports: EnginePorts;
  /** Every kind has a handler: the host's, or the in-process default. */
  private readonly handlers: Required<OutboxHandlers>;
  /** Undefined without an event store. */
  private readonly eventDelivery?: EventDeliveryService;
  /** In-process delivery of lifecycle events (shared by every view of this engine). */
  private readonly dispatcher?: EventDispatcher;
  private migrationsAndBulkActionsInstance?: MigrationsAndBulkActions;
  /** Reads of instances (no lease): instance-reads.ts. */
  private readonly reads: InstanceReads;
  /** Lifecycle events after their change: lifecycle-event-operations.ts. */
  private readonly events: LifecycleEventOperations;
  /** "Why is it stuck?": waiting-service.ts. */
  private readonly waiting: WaitingService;
  /** One key's flow control, read and overridden (undefined without a flow store). */
  readonly flow?: FlowKeys;

  constructor(ports: EnginePorts, options?: EngineOptions);
  constructor(parts: EngineParts, options: undefined, handlers: Partial<OutboxHandlers>);
  constructor(portsOrParts: EnginePorts | EngineParts, options: EngineOptions = {}, handlers: Partial<OutboxHandlers> = {}) {
    if ('runtime' in portsOrParts) {
      ({ ports: this.ports, options: this.options, workflows: this.workflows, runtime: this.runtime } = portsOrParts);
      this.eventDelivery = portsOrParts.eventDelivery;
      this.dispatcher = portsOrParts.dispatcher;
    } else {
      this.ports = portsOrParts;
      this.options = resolveEngineOptions(options);
      this.workflows = new WorkflowService(this.ports.workflows, this.options.registry, this.options.definitionCacheSize, this.options.clock);
      this.runtime = new InstanceRuntime(this.ports, this.workflows.versions, this.options);
      if (this.ports.events) {
        const { http, policy, sourcePrefix } = this.options.events;
        this.eventDelivery = new EventDeliveryService({ store: this.ports.events, versions: this.workflows.versions, http, policy, clock: this.options.clock, sourcePrefix });
        this.dispatcher = new EventDispatcher(this.eventDelivery, this.options.logger);
      }
    }
    // In-process delivery by default: raised triggers published here, events to the dispatcher, children
    // created here, timers fired on the engine's clock (a host gives handlers of its own for what it schedules).
    this.handlers = {
      trigger: async (row) => void (await this.publish(row.payload)),
      event: async (row) => this.events.dispatchInProcess(row),
      startInstance: async (row, rowOptions) => this.startChild(row.payload, rowOptions),
      cancelChildren: async (row, rowOptions) => this.cancelChildren(row.payload.parentId, row.payload.incarnation, rowOptions),
      ...(handlers.timer ? {} : { timer: this.inProcessTimerHandler() }),
      ...handlers,
    } as Required<OutboxHandlers>;
    this.relay = new OutboxRelay(this.ports.outbox, this.handlers);
    this.reads = new InstanceReads(this.ports);
    this.waiting = new WaitingService(this.ports, this.workflows.versions, this.options.clock);
    if (this.ports.flow && this.runtime.slots) {
      this.flow = new FlowKeys(
        this.ports.flow,
        this.runtime.slots,
        async (workflowId, flowOptions) => (await this.workflows.find(workflowId, flowOptions))?.definition,
        () => this.options.clock.now(),
      );
    }
    this.events = new LifecycleEventOperations(this.reads, (row, rowOptions) => this.handlers.event(row, rowOptions ?? {}), this.ports.events, this.eventDelivery, this.dispatcher);
  }

  /** Without a host scheduler: timers fired in this process on the engine's clock. */
  private inProcessTimerHandler(): OutboxHandlers['timer'] {
    const timers = new InProcessTimers(this.options.clock, (timer) => this.fireTimer(timer).then(() => undefined), this.options.logger);
    return (row) => timers.arm(row.payload);
  }

  /** The same engine (stores, caches, run loop, event dispatcher) delivering the given kinds of outbox rows through `handlers`. */
  withDelivery(handlers: Partial<OutboxHandlers>): Engine {
    const parts: EngineParts = {
      ports: this.ports,
      options: this.options,
      workflows: this.workflows,
      runtime: this.runtime,
      ...(this.eventDelivery ? { eventDelivery: this.eventDelivery } : {}),
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    };
    return new Engine(parts, undefined, handlers);
  }

  // ---- workflows ----------------------------------------------------------------------------------

  /**
   * Parses and validates a definition (the registry decides which step types exist): the edge's step for
   * untyped input (a request body, a file). DefinitionInvalidError lists every problem.
   */
  validateWorkflow(input: unknown): WorkflowDefinition {
    return this.workflows.validate(input);
  }

  /**
   * Stores version 1; ConflictError if the id exists. Checked again against the registry (a typed value
   * may still name an unknown step type or carry a bad expression): DefinitionInvalidError lists every problem.
   */
  async createWorkflow(definition: WorkflowDefinitionInput, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.workflows.create(this.workflows.validate(definition), options);
  }

  /** Adds a version (checked as `createWorkflow` checks); `ifMatch` is the latest version's ETag or `*`. */
  async addWorkflowVersion(definition: WorkflowDefinitionInput, options: OperationOptions & { ifMatch: string }): Promise<WorkflowVersion> {
    return this.workflows.addVersion(this.workflows.validate(definition), options);
  }

  /**
   * Creates or versions a workflow from an untyped definition, with If-Match semantics (PUT): see
   * WorkflowService.put. `created` says which it did.
   */
  putWorkflow(workflowId: string, input: unknown, options?: OperationOptions & { ifMatch?: string; force?: boolean }): Promise<{ workflow: WorkflowVersion; created: boolean }> {
    return this.workflows.put(workflowId, input, options);
  }

  /** The latest version, or the given one. NotFoundError if absent. */
  getWorkflow(workflowId: string, version?: number, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.workflows.get(workflowId, version, options);
  }

  listWorkflows(pageOptions?: PageOptions): Promise<Page<WorkflowSummary>> {
    return onePage(this.workflows.list(pageOptions));
  }

  // ---- instances ----------------------------------------------------------------------------------

  /**
   * Creates an instance of the latest version: ValidationError for bad input, NotFoundError for an
   * unknown workflow, ConflictError for a duplicate id. An initial entry condition that is false or an
   * entry action that fails creates it `faulted`.
   */
  async createInstance(input: CreateInstanceInput, options: CreateOptions = {}): Promise<StoredInstance> {
    return (await this.createOrFindInstance(input, options)).instance;
  }

  /**
   * As createInstance; under a workflow's `flow.unique` with `onConflict: existing`, a request whose key an
   * instance that has not ended holds answers that instance (`created: false`) instead of a ConflictError.
   */
  createOrFindInstance(input: CreateInstanceInput, options: CreateOptions = {}): Promise<{ instance: StoredInstance; created: boolean }> {
    return withSpan('Engine.createInstance', {}, async (span) => {
      // Checked again: library callers may pass anything (a route has parsed it already).
      const parsed = parseWith(createInstanceInputSchema, input, 'The instance request is invalid');
      const workflow = await this.workflows.find(parsed.workflowId, options);
      if (!workflow) throw new NotFoundError(`Workflow "${parsed.workflowId}" does not exist`);
      const request: NewInstance = {
        instanceId: parsed.instanceId ?? this.options.newId(),
        context: parsed.context,
        ...(parsed.businessKey !== undefined ? { businessKey: parsed.businessKey } : {}),
        ...(options.actor ? { actor: options.actor } : {}),
      };
      const claimed = await createClaimingKeys(this.ports, workflow.definition, request, { now: () => this.options.clock.now(), newToken: this.options.newId }, options, (claimedRequest) =>
        this.runtime.create(workflow, claimedRequest, options),
      );
      if (claimed.existing) {
        span.setAttributes({ instanceId: claimed.existing.id, workflowId: claimed.existing.workflowId, status: claimed.existing.status, existing: true });
        return { instance: claimed.existing, created: false };
      }
      const { created } = claimed;
      span.setAttributes({ instanceId: created.instance.id, workflowId: created.instance.workflowId, status: created.instance.status });
      if (options.followUp === 'afterAnswer') this.afterAnswer(created);
      else await this.relayAfter(created, options);
      return { instance: created.instance, created: true };
    });
  }

  getInstance(instanceId: string, options?: OperationOptions): Promise<StoredInstance> {
    return this.reads.get(instanceId, options);
  }

  /** Instances being deleted are left out, so a page may hold fewer than `maxPageSize`. */
  listInstances(query: InstanceQuery = {}, pageOptions?: PageOptions): Promise<Page<StoredInstance>> {
    return this.reads.list(query, pageOptions);
  }

  /** Oldest first. NotFoundError if the instance does not exist. */
  getHistory(instanceId: string, pageOptions?: PageOptions): Promise<Page<HistoryEntry>> {
    return this.reads.history(instanceId, pageOptions);
  }

  /** The triggers recently offered to the instance that changed nothing, newest first. NotFoundError if it does not exist. */
  getOffers(instanceId: string, options: OperationOptions = {}): Promise<TriggerOffer[]> {
    return this.reads.offers(instanceId, options);
  }

  /** Why the instance is not moving: every situation it is in, the primary first (waiting-service.ts). NotFoundError if it does not exist. */
  async whyWaiting(instanceId: string, options: OperationOptions = {}): Promise<WaitingAnswer> {
    return this.waiting.explain(await this.getInstance(instanceId, options), options);
  }

  /** A workflow's instances that are not final, counted per class and state (waiting-service.ts). NotFoundError if the workflow does not exist. */
  async waitingSummary(workflowId: string, options: OperationOptions = {}): Promise<WaitingSummary> {
    await this.getWorkflow(workflowId, undefined, options);
    return this.waiting.summarize(workflowId, options);
  }

  /**
   * Instances of a workflow matching a filter over its search fields (search/instance-search.ts), with
   * the plan and the storage requests made. ValidationError (400) for a filter that does not parse or fit.
   */
  searchInstances(request: SearchRequest, pageOptions?: PageOptions): Promise<SearchPage> {
    return this.instanceSearch().find(request, pageOptions);
  }

  /** How many instances of a workflow match a filter, in total and per group. */
  countInstances(request: CountRequest, options?: OperationOptions): Promise<CountResult> {
    return this.instanceSearch().count(request, options);
  }

  /** The fields a filter on the workflow may name (the console completes them). */
  searchFields(workflowId: string, options?: OperationOptions): Promise<SearchField[]> {
    return this.instanceSearch().fieldsOf(workflowId, options);
  }

  /** Writes one instance's search rows (a reindex); false when it does not exist. */
  reindexInstance(instanceId: string, options?: OperationOptions): Promise<boolean> {
    return this.runtime.reindex(instanceId, options);
  }

  private instanceSearch(): InstanceSearch {
    return new InstanceSearch(
      this.ports,
      this.workflows.versions,
      (workflowId, options) => this.workflows.find(workflowId, options),
      this.options.searchHmacKey,
      (workflowId, rows, options) => this.runtime.repairSearchRows(workflowId, rows, options),
    );
  }

  /** Instance ids interested in any of the subjects (a superset: each is re-checked under its lease). */
  findCandidates(subjects: readonly string[], pageOptions?: PageOptions): Promise<Page<string>> {
    return this.reads.candidates(subjects, pageOptions);
  }

  /** Instances interested in `subject` that match `query` too, each re-read and re-checked (instance-reads.ts). */
  findInstancesBySubject(subject: string, query: InstanceQuery = {}, pageOptions?: PageOptions): Promise<Page<StoredInstance>> {
    return this.reads.bySubject(subject, query, pageOptions);
  }

  /**
   * Applies a trigger to one instance under its lease, then relays what the change raised. Workflow
   * faults are outcomes; lease and storage failures are thrown (retryable ones per isRetryable), and a
   * retry is safe: the trigger id is applied at most once, and a repeat answers `duplicate` with what it did.
   */
  applyTrigger(instanceId: string, trigger: Trigger, options: ApplyTriggerOptions = {}, onWorkflow?: (workflowId: string) => void): Promise<InstanceResult> {
    return withSpan('Engine.applyTrigger', { instanceId, triggerId: trigger.id }, async (span) => {
      const decided = await this.runtime.applyTrigger(instanceId, trigger, options);
      // The host attributes the application's cost to the instance's workflow (decision 0021).
      if (decided.instance && onWorkflow) onWorkflow(decided.instance.workflowId);
      const result = decided.decision?.result ?? { instanceId, outcome: TriggerOutcome.notFound };
      span.setAttribute('outcome', result.outcome);
      await this.relayAfter(decided, options);
      return result;
    });
  }

  /**
   * Triggers that waited for room in a full state (`capacity`), offered again now that room is free. A
   * failure leaves the trigger on its queue, offered again by the next change that touches it.
   */
  private async offerWaiting(offers: readonly CapacityOffer[]): Promise<void> {
    for (const offer of offers) {
      const { instanceId, trigger } = offer.waiter;
      try {
        // Sent to an instance since deleted (and perhaps created again with its id): it waits no longer, and is not applied.
        const current = await this.ports.instances.get(instanceId);
        if (!current || current.incarnation !== offer.waiter.incarnation) {
          await this.runtime.capacity?.forget(offer);
          continue;
        }
        const result = await this.applyTrigger(instanceId, trigger);
        // Admitted and timed-out triggers left the queue themselves; one that went elsewhere or nowhere leaves it
        // here. One its instance cannot take now (suspended, faulted) stays queued: offered again by the next
        // change that frees room, as the instance keeps its other held work while it cannot take it.
        if (result.outcome !== TriggerOutcome.capacityQueued && result.outcome !== TriggerOutcome.notActive) await this.runtime.capacity?.forget(offer);
      } catch (error) {
        this.options.logger.warn('Could not offer a trigger that waited for room in a state; it stays queued', { instanceId, triggerId: trigger.id, error: String(error) });
      }
    }
  }

  /**
   * What the trigger would do to one instance (dry-run.ts): nothing is saved, no lease is taken, nothing
   * is dispatched. NotFoundError if the instance does not exist.
   */
  async dryRunTrigger(instanceId: string, trigger: Trigger, options: OperationOptions = {}): Promise<DryRunResult> {
    const result = await this.runtime.dryRun(instanceId, trigger, options);
    if (!result) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
    return result;
  }

  /**
   * What the trigger would do to each of its first MAX_DRY_RUN_CANDIDATES candidates (`truncated` when
   * there are more). A candidate deleted meanwhile is left out.
   */
  async dryRunPublish(trigger: Trigger, options: OperationOptions = {}): Promise<{ instances: DryRunResult[]; truncated: boolean }> {
    const instances: DryRunResult[] = [];
    let truncated = false;
    for await (const instanceId of this.ports.interests.findCandidates(trigger.subjects, { ...options, maxPageSize: MAX_DRY_RUN_CANDIDATES + 1 })) {
      if (instances.length === MAX_DRY_RUN_CANDIDATES) {
        truncated = true;
        break;
      }
      const result = await this.runtime.dryRun(instanceId, trigger, options);
      if (result) instances.push(result);
    }
    return { instances, truncated };
  }

  /**
   * Returns a faulted instance to `stateId`, re-running its entry conditions and actions; `repair` may
   * patch the context first (decide-recover.ts) and says who asked.
   */
  recover(instanceId: string, stateId: string, options: ActingOptions = {}, repair?: RecoveryRepair): Promise<StoredInstance> {
    return withSpan('Engine.recover', { instanceId, stateId }, async () => this.changed(instanceId, await this.runtime.recover(instanceId, stateId, options, undefined, repair), options));
  }

  /**
   * Retries a faulted instance's fault (decide-fault-retry.ts): the trigger that faulted it applied again,
   * under its own id and exactly once, to the instance as that trigger found it. ConflictError naming why
   * when it cannot be (not faulted, no trigger recorded, migrated since); NotFoundError if absent. The hosts
   * run it as a bulk `retry` operation (one instance or many); `options.actor` is who asked.
   */
  retryFault(instanceId: string, options: ActingOptions & { readonly operationId?: string } = {}): Promise<InstanceResult> {
    return withSpan('Engine.retryFault', { instanceId }, async (span) => {
      const decided = await this.runtime.retryFault(instanceId, options);
      if (!decided.decision) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
      span.setAttribute('outcome', decided.decision.result.outcome);
      await this.relayAfter(decided, options);
      return decided.decision.result;
    });
  }

  /** Cancels an instance; ConflictError if it is complete or cancelled already. */
  cancel(instanceId: string, options: ActingOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.cancel', { instanceId }, async () => this.changed(instanceId, await this.runtime.cancel(instanceId, options), options));
  }

  /** Suspends a waiting instance (ConflictError otherwise): it takes no triggers until resumed. */
  suspend(instanceId: string, options: ActingOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.suspend', { instanceId }, async () => this.changed(instanceId, await this.runtime.suspend(instanceId, options), options));
  }

  /** Makes a suspended instance waiting again (ConflictError otherwise). */
  resume(instanceId: string, options: ActingOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.resume', { instanceId }, async () => this.changed(instanceId, await this.runtime.resume(instanceId, options), options));
  }

  /**
   * Deletes the instance with its history, outbox rows, interest index rows and lease: NotFoundError if
   * absent, ConflictError while it is waiting or initializing unless `force`. Safe to repeat after a crash.
   */
  deleteInstance(instanceId: string, options: OperationOptions & { force?: boolean } = {}): Promise<void> {
    return withSpan('Engine.deleteInstance', { instanceId }, async () => {
      const decided = await this.runtime.delete(instanceId, options.force ?? false, options);
      if (!decided.decision) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
      await this.relayAfter(decided, options);
    });
  }

  /** Removes every version of a workflow: ConflictError while any instance of it exists, NotFoundError if absent. */
  async deleteWorkflow(workflowId: string, options: OperationOptions = {}): Promise<void> {
    await this.workflows.get(workflowId, undefined, options);
    const instances = await onePage(this.ports.instances.query({ workflowId }, { ...options, maxPageSize: 1 }));
    if (instances.items.length > 0) throw new ConflictError(`Workflow "${workflowId}" has instances: delete them first`);
    await this.workflows.delete(workflowId, options);
  }

  /** Migration, dry run, and the per-instance steps of migrations and bulk actions: migrations-and-bulk-actions.ts. */
  get migrationsAndBulkActions(): MigrationsAndBulkActions {
    return (this.migrationsAndBulkActionsInstance ??= new MigrationsAndBulkActions(this, this.ports, this.runtime, (decided, options) => this.relayAfter(decided, options)));
  }

  /**
   * Offers a trigger to every candidate (in-process delivery; the hosts fan out through their operation
   * runners instead), driving the same fan-out as they do (operations/fan-out.ts) with no operation
   * record: pages of candidates, each instance offered once, one at a time. Returns each instance's
   * result; the first failure is thrown once the instances already being offered are done.
   */
  async publish(trigger: Trigger, options: OperationOptions = {}): Promise<InstanceResult[]> {
    const results: InstanceResult[] = [];
    let failure: unknown;
    const fanOut = new FanOut({}, { batchesInFlight: 1 });
    for (;;) {
      const step = fanOut.next();
      if (step.next === 'complete') break;
      if (step.next === 'read') {
        try {
          const page = await onePage(this.ports.interests.findCandidates(trigger.subjects, options), {
            maxPageSize: 1000,
            ...(step.continuationToken !== undefined ? { continuationToken: step.continuationToken } : {}),
          });
          fanOut.pageRead({ instanceIds: page.items, ...(page.continuationToken ? { continuationToken: page.continuationToken } : {}) });
        } catch (error) {
          failure ??= error;
          fanOut.failed(failureReason(error));
        }
      } else if (step.next === 'apply') {
        // Applied here, one instance after another; `wait` then hands the batch's results over.
        const batch: InstanceResult[] = [];
        for (const instanceId of step.batch.instanceIds) {
          try {
            batch.push(await this.applyTrigger(instanceId, trigger, options));
          } catch (error) {
            failure ??= error;
            break;
          }
        }
        results.push(...batch);
        fanOut.batchFinished({ ...accumulateResults(emptyTotals([]), batch), ...(failure !== undefined ? { error: failureReason(failure) } : {}) });
      }
      // `wait` has nothing left to wait for, and `record` nothing to record: no operation record in process.
    }
    if (failure !== undefined) throw failure;
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

  /**
   * Deletes what failed saves left outside the instances' rows (a large record's blob), older than
   * ORPHAN_GRACE_PERIOD_MS by the engine's clock; returns how many (0 for a store without any).
   */
  collectOrphans(options: OperationOptions = {}): Promise<number> {
    const writtenBefore = new Date(this.options.clock.now().getTime() - ORPHAN_GRACE_PERIOD_MS);
    return this.ports.instances.collectOrphans?.({ ...options, writtenBefore }) ?? Promise.resolve(0);
  }

  // ---- lifecycle events and children -------------------------------------------------------------

  /** The instance's lifecycle events with their deliveries, oldest first. NotFoundError if the instance does not exist. */
  listEvents(instanceId: string, pageOptions?: PageOptions): Promise<Page<LifecycleEventRecord>> {
    return this.events.list(instanceId, pageOptions);
  }

  /** Retries an event's dead-lettered deliveries through this engine's delivery (lifecycle-event-operations.ts). */
  redeliverEvent(instanceId: string, eventId: string, options: OperationOptions = {}): Promise<void> {
    return this.events.redeliver(instanceId, eventId, options);
  }

  /** One delivery attempt (the Azure delivery orchestration's activity; the local dispatcher calls it itself). */
  attemptEventDelivery(target: EventDeliveryTarget, options?: OperationOptions): Promise<AttemptResult> {
    return this.events.attempt(target, options);
  }

  /** Hands every pending event delivery to this engine's delivery (start-up); returns how many. */
  resumeEventDeliveries(options: PageOptions = {}): Promise<number> {
    return this.events.resume(options);
  }

  /** Relays a change's rows without holding the caller (CreateOptions.followUp); a failure is logged, and the rows stay for the next load or the sweep. */
  private afterAnswer(decided: AppliedDecision): void {
    void this.relayAfter(decided, {}).catch((error: unknown) =>
      this.options.logger.error('Follow-up work after an answer failed; its rows stay for the next load or start', { instanceId: decided.instance?.id, error: String(error) }),
    );
  }

  /** Resolves when the in-process event dispatcher has nothing queued (tests). */
  eventDeliveriesIdle(): Promise<void> {
    return this.events.idle();
  }

  /** Stops in-process event delivery (pending deliveries stay recorded for the next start). */
  stopEventDeliveries(): void {
    this.events.stop();
  }

  /**
   * Creates a child from a `startInstance` row: once, whatever the number of deliveries (the id is
   * deterministic; an existing instance is the earlier delivery's). A child that cannot be created (its
   * workflow does not exist, its context is invalid) is logged and dropped: retrying cannot help.
   */
  private async startChild(payload: StartInstancePayload, options: OperationOptions = {}): Promise<void> {
    try {
      const workflow = await this.workflows.find(payload.workflowId, options);
      if (!workflow) throw new NotFoundError(`Workflow "${payload.workflowId}" does not exist`);
      const created = await this.runtime.create(
        workflow,
        {
          instanceId: payload.instanceId,
          context: payload.context,
          parent: payload.parent,
          causalDepth: payload.causalDepth ?? 1,
          ...(payload.causalBudget !== undefined ? { causalBudget: payload.causalBudget } : {}),
          ...(payload.actor ? { actor: payload.actor } : {}),
        },
        options,
      );
      await this.relayAfter(created, options);
    } catch (error) {
      if (error instanceof ConflictError) {
        // The earlier delivery's child, or an instance of its own that holds the id: the parent is told
        // nothing in either case, so say so when it is not its child.
        const existing = await this.ports.instances.get(payload.instanceId, options);
        const own = existing && existing.parent?.instanceId === payload.parent.instanceId && existing.parent.incarnation === payload.parent.incarnation;
        if (!own)
          this.options.logger.error('Could not start a child instance: its id is taken by another instance', {
            parentId: payload.parent.instanceId,
            instanceId: payload.instanceId,
            workflowId: payload.workflowId,
          });
        return;
      }
      if (isRetryable(error)) throw error;
      this.options.logger.error('Could not start a child instance', { parentId: payload.parent.instanceId, instanceId: payload.instanceId, workflowId: payload.workflowId, error: String(error) });
    }
  }

  /**
   * Cancels the running children of a cancelled parent (of its incarnation), each through the run loop,
   * so each cascades to its own. One finished meanwhile is left as it is (ConflictError).
   */
  private async cancelChildren(parentId: string, incarnation: string | undefined, options: OperationOptions = {}): Promise<void> {
    const parent = { id: parentId, startedChildren: true as const, ...(incarnation !== undefined ? { incarnation } : {}) };
    for (const child of await this.runtime.childrenOf(parent, options)) {
      if (child.status === 'complete' || child.status === 'cancelled') continue;
      try {
        await this.cancel(child.id, options);
      } catch (error) {
        if (!(error instanceof ConflictError) && !(error instanceof NotFoundError)) throw error;
      }
    }
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async changed(instanceId: string, decided: AppliedDecision, options: OperationOptions): Promise<StoredInstance> {
    if (!decided.instance) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
    await this.relayAfter(decided, options);
    return decided.instance;
  }

  /** After the lease: the change's outbox rows relayed, and the triggers waiting for room it made offered (any change: a trigger, a creation, a migration, a recovery). */
  private async relayAfter(decided: AppliedDecision, options: OperationOptions): Promise<void> {
    await this.relayOutbox(decided, options);
    await this.offerWaiting(decided.capacityOffers ?? []);
  }

  /**
   * The lease is released: deliver the rows, and remember the instance is clear when all went. A
   * retryable failure is thrown, so the caller's retry (answered `duplicate`) relays the rows again from
   * the load; any other is logged, not thrown, since the change itself is saved: the rows wait for the
   * next load of the instance or the start-up sweep.
   */
  private async relayOutbox(decided: AppliedDecision, options: OperationOptions): Promise<void> {
    // A deleted instance has no rows left: only the re-offers of the room it freed are relayed (capacity-reoffers.ts).
    const deleted = !decided.instance && decided.released?.length ? decided.decision?.result.instanceId : undefined;
    if (deleted !== undefined) decided = { ...decided, instance: { id: deleted } as StoredInstance, outbox: decided.released! };
    if (decided.outbox.length === 0 || !decided.instance) return;
    try {
      if ((await this.relay.relay(decided.instance.id, decided.outbox, options)) && deleted === undefined) this.runtime.relayedAll(decided);
    } catch (error) {
      if (isRetryable(error)) throw error;
      this.options.logger.error('Could not deliver outbox rows; they stay for the next load or start', { instanceId: decided.instance.id, error: String(error) });
    }
  }
}
