/**
 * @module The engine facade: workflows (workflow-service.ts), instances through the one run loop
 * (instance-runtime.ts), and the relay of the rows each change wrote, after the lease is released
 * (outbox-relay.ts). It holds no mutable wiring: a host that delivers raised triggers its own way takes
 * `engine.withDelivery(handlers)`, a view sharing everything but the delivery. Without one, raised
 * triggers are published in-process (tests, the library, single-process hosting).
 */
import type { EngineOptions } from './runtime/engine-options';
import { MigrationsAndBulkActions } from './migrations-and-bulk-actions';
import type { OutboxHandlers } from './runtime/outbox-relay';
import type { EngineParts, EnginePorts } from './engine-core';
import { EngineInstanceCommands } from './engine-instance-commands';
import { HumanTasks } from './human-tasks';

export { MAX_DRY_RUN_CANDIDATES, type ActingOptions, type CreateOptions, type EnginePorts } from './engine-core';

/**
 * The facade, in parts (each a file): its wiring and the follow-up relay (engine-core.ts,
 * engine-follow-up.ts), workflow commands (engine-workflows.ts), queries (engine-queries.ts), instance
 * commands (engine-instance-commands.ts); here the views and the migrations and bulk actions.
 */
export class Engine extends EngineInstanceCommands {
  private migrationsAndBulkActionsInstance?: MigrationsAndBulkActions;
  private humanTasksInstance?: HumanTasks;

  constructor(ports: EnginePorts, options?: EngineOptions);
  constructor(parts: EngineParts, options: undefined, handlers: Partial<OutboxHandlers>);
  constructor(portsOrParts: EnginePorts | EngineParts, options: EngineOptions = {}, handlers: Partial<OutboxHandlers> = {}) {
    super(portsOrParts, options, handlers);
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

  /** Migration, dry run, and the per-instance steps of migrations and bulk actions: migrations-and-bulk-actions.ts. */
  get migrationsAndBulkActions(): MigrationsAndBulkActions {
    return (this.migrationsAndBulkActionsInstance ??= new MigrationsAndBulkActions(this, this.ports, this.runtime, (decided, options) => this.followUps.relayAfter(decided, options)));
  }

  /** Human tasks: the inbox, one task, claim, release, delegate and complete (human-tasks.ts). */
  get tasks(): HumanTasks {
    return (this.humanTasksInstance ??= new HumanTasks(
      this.runtime,
      this.ports.instances,
      this.workflows,
      this.ports.tasks,
      () => this.options.clock.now(),
      (decided, options) => this.followUps.relayAfter(decided, options),
    ));
  }
}
