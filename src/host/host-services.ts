/**
 * @module The wiring shared by both hosts: ports → Engine → trigger submitter → API services and
 * trigger activities. The hosts differ only in the OperationLauncher (durable orchestration on Azure,
 * in-process runner locally) and in where the ports come from.
 */
import type { TaskIndex } from '../engine/tasks';
import { Engine } from '../engine/engine';
import type { EventDeliveryTarget } from '../engine/runtime';
import type { OutboxHandlers } from '../engine/runtime';
import type { EngineOptions } from '../engine/runtime';
import type { DueTimerIndex, EventStore, FlowStore, HistoryStore, InstanceStore, InterestIndex, LeaseProvider, OperationStore, OutboxStore, WorkflowStore } from '../engine/ports';
import { createOutboundClient } from '../outbound/outbound-client';
import { consoleConfigFromEnv } from './http/system/console-routes';
import type { ApiServices } from './http/types';
import { FinishedOperationCache } from './finished-operation-cache';
import { operationAwaiter } from './operation-wait';
import { allowedHosts, readSetting, type Environment } from './settings';
import type { SearchIndexStore } from '../engine/search';
import { OperationActivityService, OperationWorkCache, type Logger } from './operation-activity-service';
import { TriggerSubmitter, type OperationLauncher } from './trigger-submitter';
import { DEFAULT_TENANT_ID, TenantQuotaGate, quotasFromEnv, resolveQuotas, type QuotaCounts } from './tenant-quotas';
import { InstanceStatus, OperationStatus } from '../engine/model';
import { costCountingFromEnv, costMeter, currentCost, setCostCounting } from './cost/cost-scope';
import type { CostStore } from './cost/cost-store';
import { DailyCosts } from './cost/daily-costs';
import { priceTableFromEnv } from './cost/price-table';

export interface SignalboxPorts {
  readonly workflows: WorkflowStore;
  readonly instances: InstanceStore;
  readonly history: HistoryStore;
  readonly outbox: OutboxStore;
  readonly events: EventStore;
  readonly interests: InterestIndex;
  readonly operations: OperationStore;
  readonly leases: LeaseProvider;
  /**
   * Armed timers by due time, for a host that schedules timers from storage (the local server): the run
   * loop then writes a row before each save that arms timers. The Functions app leaves it out (durable timers).
   */
  readonly dueTimers?: DueTimerIndex;
  /** Instances by business data; absent: instances are listed by their columns only. */
  readonly search?: SearchIndexStore;
  /** The inbox index of human tasks; absent: tasks work, inboxes list nothing. */
  readonly tasks?: TaskIndex;
  /** Flow-control rows (flow.concurrency); absent: concurrency policies are not enforced. */
  readonly flow?: FlowStore;
  /** What operations cost per workflow per day (decision 0021); absent: costs are recorded on operations only. */
  readonly costs?: CostStore;
  /** True when storage answers. */
  checkHealth(): Promise<boolean>;
}

export interface HostCore {
  readonly ports: SignalboxPorts;
  readonly engine: Engine;
  readonly logger: Logger;
  /** `ports.operations` behind the finished-operation cache: what services and activities use. */
  readonly operations: FinishedOperationCache;
  /** This core's tenant's quotas (its API services carry them). */
  readonly quotas: TenantQuotaGate;
  /** What finished operations cost per workflow per day (decision 0021); stop() it with the host, to write what it holds. */
  readonly dailyCosts?: DailyCosts;
  /**
   * API services whose triggers are run by `launcher` (and lifecycle events delivered by `events`, else in
   * process); `stopping` ends requests' waits early.
   */
  servicesFor(launcher: OperationLauncher, events?: EventLauncher, stopping?: AbortSignal): ApiServices;
  /** Activities whose raised triggers are dispatched through `launcher` (and events through `events`). */
  activitiesFor(launcher: OperationLauncher, events?: EventLauncher): OperationActivityService;
}

/** Starts the delivery of lifecycle events somewhere durable (the Functions app: one orchestration per delivery). */
export interface EventLauncher {
  deliver(targets: readonly EventDeliveryTarget[]): Promise<void>;
}

export interface HostCoreOptions {
  readonly ports: SignalboxPorts;
  readonly logger: Logger;
  readonly env?: Environment;
  /** Overrides of the engine's defaults (tests pass a clock, a registry, ...). */
  readonly engineOptions?: Partial<EngineOptions>;
  /**
   * The tenant this core serves and its quota overrides (the tenant registry's `quotas`, over the
   * SIGNALBOX_QUOTA_* defaults). @default the default tenant, without overrides
   */
  readonly tenant?: { readonly id: string; readonly quotas?: Readonly<Record<string, number>> };
  /** Counts the quotas use instead of storage's (the local server: its runner's operations). */
  readonly quotaCounts?: Partial<QuotaCounts>;
}

/** Alive: not complete or cancelled. Counted per status (the stores filter by status), stopping at `limit`. */
const ALIVE_STATUSES = [InstanceStatus.initializing, InstanceStatus.waiting, InstanceStatus.suspended, InstanceStatus.faulted];

/** What a tenant's quotas count, read from its storage; each count stops once it reaches `limit`. */
function storageCounts(ports: SignalboxPorts): QuotaCounts {
  const upTo = async (limit: number, lists: readonly AsyncIterable<{ items: readonly unknown[] }>[]) => {
    let counted = 0;
    for (const pages of lists) {
      for await (const page of pages) {
        counted += page.items.length;
        if (counted >= limit) return counted;
      }
    }
    return counted;
  };
  return {
    instancesAlive: (limit) =>
      upTo(
        limit,
        // Ids only where the store can: a count must not read the records (a large one is a blob download).
        ALIVE_STATUSES.map((status) => (ports.instances.queryIds?.({ status }) ?? ports.instances.query({ status })).byPage({ maxPageSize: 1000 })),
      ),
    operationsRunning: (limit) => upTo(limit, [ports.operations.listByStatus([OperationStatus.notStarted, OperationStatus.running]).byPage({ maxPageSize: 1000 })]),
  };
}

export function createHostCore({ ports, logger, env = process.env, engineOptions = {}, tenant, quotaCounts }: HostCoreOptions): HostCore {
  const engine = new Engine(
    {
      workflows: ports.workflows,
      instances: ports.instances,
      history: ports.history,
      outbox: ports.outbox,
      events: ports.events,
      interests: ports.interests,
      leases: ports.leases,
      ...(ports.dueTimers ? { dueTimers: ports.dueTimers } : {}),
      ...(ports.search ? { search: ports.search } : {}),
      ...(ports.tasks ? { tasks: ports.tasks } : {}),
      ...(ports.flow ? { flow: ports.flow } : {}),
    },
    {
      http: createOutboundClient({
        allowedHosts: allowedHosts(env),
        meter: costMeter,
        // The URL comes redacted (userinfo, query values): a definition may carry a key there, and logs must not.
        onRetry: (retry) => logger.warn('Retrying an outbound call', { ...retry }),
      }),
      // The shortest lease Azure allows, renewed every 5 s while work runs: an application takes
      // milliseconds, and a worker that dies holds its instances for at most 15 s instead of 60.
      leaseDurationInSeconds: 15,
      // Concurrency slots likewise: renewed every 5 s while held, a dead worker's free after 15 s.
      flowSlotTtlInMs: 15_000,
      // Instances carry running totals of their applications' cost (decision 0021): what the one being applied sent so far.
      costSoFar: () => currentCost()?.snapshot(),
      ...(readSetting('SIGNALBOX_INDEX_HMAC_KEY', env) ? { searchHmacKey: readSetting('SIGNALBOX_INDEX_HMAC_KEY', env)! } : {}),
      logger: {
        info: (message, properties) => logger.info(message, properties),
        warn: (message, properties) => logger.warn(message, properties),
        error: (message, properties) => logger.error(message, properties),
      },
      ...engineOptions,
      // Subscribers: the same pipeline (allow-list, timeout, identity) without its own retries, since the
      // event delivery policy retries with backoff over hours. Tests may shorten the policy.
      events: {
        http: createOutboundClient({ allowedHosts: allowedHosts(env), maxRetries: 0, meter: costMeter }),
        sourcePrefix: readSetting('SIGNALBOX_EVENT_SOURCE_PREFIX', env) ?? '',
        ...engineOptions.events,
      },
    },
  );
  const consoleConfig = consoleConfigFromEnv(env);
  const operationWorkCache = new OperationWorkCache();
  // Every reader and writer of operation records goes through it: a finished record written or read
  // here is answered from memory from then on (polls, repeated trigger ids).
  const operations = new FinishedOperationCache(ports.operations);
  const now = () => engine.options.clock.now();
  // One gate per core, so one token bucket per tenant per process (tenant-quotas.ts says what is exact).
  // Read at start-up: a bad SIGNALBOX_PRICE_TABLE stops it, naming the setting and the field.
  const priceTable = priceTableFromEnv(env);
  // SIGNALBOX_COST_COUNTING is the process's: every core of it reads the same settings.
  const counting = costCountingFromEnv(env);
  setCostCounting(counting);
  // What finished operations cost per workflow per day, written in the background (daily-costs.ts).
  const dailyCosts = ports.costs && counting ? new DailyCosts(ports.costs, logger) : undefined;
  const quotas = new TenantQuotaGate(tenant?.id ?? DEFAULT_TENANT_ID, resolveQuotas(quotasFromEnv(env), tenant?.quotas), { ...storageCounts(ports), ...quotaCounts });
  /**
   * The engine whose raised triggers become operations that `launcher` runs, like any trigger, whose
   * armed timers go to the launcher's scheduler, and whose lifecycle events go to `events` when given.
   */
  const bound = (launcher: OperationLauncher, events?: EventLauncher) => {
    const triggers = new TriggerSubmitter(operations, launcher, now, engine.options.newId);
    const armTimer = launcher.armTimer?.bind(launcher);
    const handlers: Partial<OutboxHandlers> = {
      trigger: async (row) => void (await triggers.submit(row.payload)),
      ...(armTimer ? { timer: (row) => armTimer(row.payload) } : {}),
      ...(events
        ? { event: (row) => events.deliver(row.payload.subscriptionIds.map((subscriptionId) => ({ instanceId: row.payload.instanceId, eventId: row.payload.eventId, subscriptionId }))) }
        : {}),
    };
    return { triggers, engine: engine.withDelivery(handlers) };
  };
  return {
    ports,
    engine,
    logger,
    operations,
    quotas,
    ...(dailyCosts ? { dailyCosts } : {}),
    servicesFor(launcher, events, stopping) {
      const { triggers, engine: delivering } = bound(launcher, events);
      return {
        engine: delivering,
        operations,
        triggers,
        awaitOperation: operationAwaiter(operations, launcher, stopping),
        newId: engine.options.newId,
        checkHealth: () => ports.checkHealth(),
        consoleConfig,
        quotas,
        ...(dailyCosts ? { costs: dailyCosts } : {}),
        priceTable,
      };
    },
    activitiesFor(launcher, events) {
      return new OperationActivityService({ engine: bound(launcher, events).engine, operations, operationWorkCache, logger, now, ...(dailyCosts ? { costs: dailyCosts } : {}) });
    },
  };
}
