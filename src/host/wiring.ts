/**
 * @module The wiring shared by both hosts: ports → Engine → trigger submitter → API services and
 * trigger activities. The hosts differ only in the OperationLauncher (durable orchestration on Azure,
 * in-process runner locally) and in where the ports come from.
 */
import { Engine } from '../engine/engine';
import type { EngineOptions } from '../engine/engine-options';
import type { DueTimerIndex, HistoryStore, InstanceStore, InterestIndex, LeaseProvider, OperationStore, OutboxStore, WorkflowStore } from '../engine/ports';
import { createOutboundClient } from '../outbound/outbound-client';
import type { ApiServices } from './http/types';
import { allowedHosts, type Environment } from './settings';
import { TriggerActivityService, TriggerCache, type Logger } from './trigger-activity-service';
import { TriggerSubmitter, type OperationLauncher } from './trigger-submitter';

export interface SignalboxPorts {
  readonly workflows: WorkflowStore;
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  readonly outbox: OutboxStore;
  readonly interests: InterestIndex;
  readonly operations: OperationStore;
  readonly leases: LeaseProvider;
  /**
   * Armed timers by due time, for a host that schedules timers from storage (the local server): the run
   * loop then writes a row before each save that arms timers. The Functions app leaves it out (durable timers).
   */
  readonly dueTimers?: DueTimerIndex;
  /** True when storage answers. */
  checkHealth(): Promise<boolean>;
}

export interface HostCore {
  readonly ports: SignalboxPorts;
  readonly engine: Engine;
  readonly logger: Logger;
  /** API services whose triggers are run by `launcher`. */
  servicesFor(launcher: OperationLauncher): ApiServices;
  /** Activities whose raised triggers are dispatched through `launcher`. */
  activitiesFor(launcher: OperationLauncher): TriggerActivityService;
}

export interface HostCoreOptions {
  readonly ports: SignalboxPorts;
  readonly logger: Logger;
  readonly env?: Environment;
  /** Overrides of the engine's defaults (tests pass a clock, a registry, ...). */
  readonly engineOptions?: Partial<EngineOptions>;
}

export function createHostCore({ ports, logger, env = process.env, engineOptions = {} }: HostCoreOptions): HostCore {
  const engine = new Engine(
    {
      workflows: ports.workflows,
      instances: ports.instances,
      history: ports.history,
      outbox: ports.outbox,
      interests: ports.interests,
      leases: ports.leases,
      ...(ports.dueTimers ? { dueTimers: ports.dueTimers } : {}),
    },
    {
      http: createOutboundClient({
        allowedHosts: allowedHosts(env),
        // Without the query string: a definition may carry a key there, and logs must not.
        onRetry: ({ url, ...retry }) => logger.warn('Retrying an outbound call', { url: url.replace(/[?#].*$/, ''), ...retry }),
      }),
      // The shortest lease Azure allows, renewed every 5 s while work runs: an application takes
      // milliseconds, and a worker that dies holds its instances for at most 15 s instead of 60.
      leaseDurationInSeconds: 15,
      logger: { info: (message, properties) => logger.info(message, properties), warn: (message, properties) => logger.warn(message, properties), error: (message, properties) => logger.error(message, properties) },
      ...engineOptions,
    },
  );
  const triggerCache = new TriggerCache();
  const now = () => engine.options.clock.now();
  /**
   * The engine whose raised triggers become operations that `launcher` runs, like any trigger, and whose
   * armed timers go to the launcher's scheduler.
   */
  const bound = (launcher: OperationLauncher) => {
    const triggers = new TriggerSubmitter(ports.operations, launcher, now);
    const armTimer = launcher.armTimer?.bind(launcher);
    return {
      triggers,
      engine: engine.withDelivery({
        trigger: async (row) => void (await triggers.submit(row.payload)),
        ...(armTimer ? { timer: (row) => armTimer(row.payload) } : {}),
      }),
    };
  };
  return {
    ports,
    engine,
    logger,
    servicesFor(launcher) {
      const { triggers, engine: delivering } = bound(launcher);
      return { engine: delivering, operations: ports.operations, triggers, newId: engine.options.newId, checkHealth: () => ports.checkHealth() };
    },
    activitiesFor(launcher) {
      return new TriggerActivityService({ engine: bound(launcher).engine, operations: ports.operations, triggerCache, logger, now });
    },
  };
}
