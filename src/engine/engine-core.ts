/**
 * @module The engine facade's wiring (engine.ts is the facade): the ports, the run loop, the delivery of
 * outbox rows (the host's handlers, or in-process defaults: raised triggers published here, events to the
 * dispatcher, children created here, timers on the engine's clock) and the follow-up relay. The facade's
 * methods are in the parts built on it: workflow commands (engine-workflows.ts), queries
 * (engine-queries.ts), instance commands (engine-instance-commands.ts).
 */
import type { TaskIndex } from './tasks/task-index';
import type { StoredInstance } from './model/instance';
import { type EngineOptions, type ResolvedEngineOptions, resolveEngineOptions } from './runtime/engine-options';
import { ConflictError, NotFoundError, isRetryable } from './model/errors';
import { EventDeliveryService } from './runtime/event-delivery';
import { EventDispatcher } from './runtime/event-dispatcher';
import type { StartInstancePayload } from './model/outbox';
import { InstanceRuntime, type ApplyTriggerOptions } from './runtime/instance-runtime';
import type { InstanceResult } from './operations/operation';
import { OutboxRelay, type OutboxHandlers } from './runtime/outbox-relay';
import { InProcessTimers } from './runtime/in-process-timers';
import type { DueTimer } from './decide/timers';
import type { DueTimerIndex, HistoryStore, InterestIndex, InstanceStore, LeaseProvider, OperationOptions, OutboxStore, WorkflowStore, EventStore } from './ports/ports';
import type { Trigger } from './model/trigger';
import { WorkflowService } from './runtime/workflow-service';
import { InstanceReads } from './runtime/instance-reads';
import { LifecycleEventOperations } from './runtime/lifecycle-event-operations';
import { WaitingService } from './runtime/waiting-service';
import type { Actor } from './model/actor';
import type { SearchIndexStore } from './search/search-port';
import type { FlowStore } from './ports/flow-store';
import { FlowKeys } from './admission/flow-keys';
import { FollowUpRelay } from './engine-follow-up';

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
  /** The inbox index of human tasks (tasks/task-index.ts): without it, tasks work but inboxes cannot be listed. */
  readonly tasks?: TaskIndex;
}

export interface EngineParts {
  readonly ports: EnginePorts;
  readonly options: ResolvedEngineOptions;
  readonly workflows: WorkflowService;
  readonly runtime: InstanceRuntime;
  readonly eventDelivery?: EventDeliveryService;
  readonly dispatcher?: EventDispatcher;
}

export abstract class EngineCore {
  readonly options: ResolvedEngineOptions;
  readonly workflows: WorkflowService;
  readonly runtime: InstanceRuntime;
  readonly relay: OutboxRelay;
  protected readonly ports: EnginePorts;
  /** Every kind has a handler: the host's, or the in-process default. */
  private readonly handlers: Required<OutboxHandlers>;
  /** Undefined without an event store. */
  protected readonly eventDelivery?: EventDeliveryService;
  /** In-process delivery of lifecycle events (shared by every view of this engine). */
  protected readonly dispatcher?: EventDispatcher;
  /** Reads of instances (no lease): instance-reads.ts. */
  protected readonly reads: InstanceReads;
  /** Lifecycle events after their change: lifecycle-event-operations.ts. */
  protected readonly events: LifecycleEventOperations;
  /** "Why is it stuck?": waiting-service.ts. */
  protected readonly waiting: WaitingService;
  /** One key's flow control, read and overridden (undefined without a flow store). */
  readonly flow?: FlowKeys;
  /** After each change's lease: its rows relayed, waiters for room it freed offered (engine-follow-up.ts). */
  protected readonly followUps: FollowUpRelay;

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
    this.followUps = new FollowUpRelay(this.relay, this.runtime, this.ports.instances, this.options.logger, (instanceId, trigger) => this.applyTrigger(instanceId, trigger));
  }

  abstract applyTrigger(instanceId: string, trigger: Trigger, options?: ApplyTriggerOptions, onWorkflow?: (workflowId: string) => void): Promise<InstanceResult>;
  abstract publish(trigger: Trigger, options?: OperationOptions): Promise<InstanceResult[]>;
  abstract cancel(instanceId: string, options?: ActingOptions): Promise<StoredInstance>;
  abstract fireTimer(timer: DueTimer, options?: OperationOptions): Promise<InstanceResult>;

  /** Without a host scheduler: timers fired in this process on the engine's clock. */
  private inProcessTimerHandler(): OutboxHandlers['timer'] {
    const timers = new InProcessTimers(this.options.clock, (timer) => this.fireTimer(timer).then(() => undefined), this.options.logger);
    return (row) => timers.arm(row.payload);
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
      await this.followUps.relayAfter(created, options);
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
}
