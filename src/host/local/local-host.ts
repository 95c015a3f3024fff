/**
 * @module The local host: storage (Azurite unless a connection is configured), the engine, the
 * in-process operation runner, the storage-driven timer scheduler and the HTTP server, started and
 * stopped as one. `npm start`, the HTTP
 * tests and the API benchmark all use it.
 */
import { accessPolicyFromEnv } from '../http/access';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { recoverLeftovers } from '../start-up-recovery';
import { startEmbeddedAzurite, type RunningAzurite } from './azurite';
import { startLocalServer, type RunningServer } from './local-server';
import { createConsoleLogger } from './logger';
import { fairSchedulerFromSettings, type FairScheduler } from './concurrency';
import { LocalOperationRunner, type LocalOperationRunnerOptions } from './local-operation-runner';
import { markingDecisions } from './deciding-scope';
import { LocalTimerScheduler, type LocalTimerSchedulerOptions } from './local-timer-scheduler';
import type { Trigger } from '../../engine/model';
import { corsAllowedOrigins, maxCreateBodyBytes, readSetting, serverNames, type Environment } from '../settings';
import { createHostCore, type HostCore, type HostCoreOptions } from '../host-services';
import { createAzurePorts, storageNamesFrom, type AzurePortsOptions } from '../azure-ports';
import { resolveStorageConnection } from '../storage-connection';
import { createTableClient } from '../../storage/connection';
import { tenantRegistryTable } from '../../storage/names';
import { TableTenantRegistry } from '../../storage/table-tenant-registry';
import { DEFAULT_TENANT_ID, tenantStorageOf, type TenantAdministration, type TenantStorage } from '../tenants';
import { createTenantAdministration } from '../tenant-administration';
import { TenantCores } from '../tenant-cores';
import type { ApiServices } from '../http/types';
import type { Logger } from '../operation-activity-service';
import { OPERATION_PURGE_INTERVAL_MS, operationRetentionDays, purgeFinishedOperations } from '../retention';
import type { StorageNames } from '../../storage/names';
import type { RequestCounter } from '../../storage/request-counter';

export interface LocalHostOptions {
  /** @default process.env */
  env?: Environment;
  /** @default PORT, else 7071; 0 picks a free port */
  port?: number;
  /** Where Azurite keeps its data when it is started here. @default SIGNALBOX_AZURITE_LOCATION, else ./.azurite */
  azuriteLocation?: string;
  /** Table and container names (tests give each run its own). @default defaultStorageNames */
  storageNames?: StorageNames;
  logger?: Logger;
  /** Counts every storage request (the benchmarks). */
  requestCounter?: RequestCounter;
  /** Lease provider options beyond the defaults (the benchmarks). */
  leases?: AzurePortsOptions['leases'];
  runner?: LocalOperationRunnerOptions;
  /** Tuning of the timer scheduler (tests, the benchmark). */
  timers?: Pick<LocalTimerSchedulerOptions, 'maxSleepInMs' | 'retryDelayInMs' | 'concurrency' | 'minIntervalInMs'>;
  engineOptions?: HostCoreOptions['engineOptions'];
  /** The built web console. @default dist/console of this package */
  consoleFolder?: string;
}

export interface LocalHost {
  readonly url: string;
  readonly core: HostCore;
  readonly runner: LocalOperationRunner;
  /** The storage-driven timer scheduler. */
  readonly timers: LocalTimerScheduler;
  /** Azurite, when this host started it. */
  readonly azurite?: RunningAzurite;
  /** The tenant registry's administration (the admin API's service). */
  readonly tenants: TenantAdministration;
  /** A tenant's runtime (the default tenant's is `core`, `runner`, `timers`); undefined for a tenant that does not exist. */
  tenantRuntime(tenantId: string): Promise<TenantRuntime | undefined>;
  /** Graceful: stop taking requests, finish or hand back in-flight work (leases released), stop Azurite. */
  stop(): Promise<void>;
}

/** One tenant's part of the local host: its storage, engine, operation runner, timer scheduler and API services. */
export interface TenantRuntime {
  readonly tenantId: string;
  readonly core: HostCore;
  readonly runner: LocalOperationRunner;
  readonly timers: LocalTimerScheduler;
  readonly services: ApiServices;
  /** Start-up work done (unfinished operations resumed); leftovers and timers go on in the background. */
  readonly started: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts one tenant's runtime on its own storage: what the local host always ran for its one deployment,
 * now once per tenant, so a tenant's raised triggers, timers, children, events, retention and recovery
 * run on its own tables only.
 */
async function startTenantRuntime(
  tenantId: string,
  storage: TenantStorage,
  options: LocalHostOptions & {
    readonly env: Environment;
    readonly logger: Logger;
    readonly stopping: AbortSignal;
    /** One for every tenant of this server: slots handed round-robin across tenants (concurrency.ts). */
    readonly scheduler: FairScheduler;
    /** The tenant record's quota overrides. */
    readonly quotas?: Readonly<Record<string, number>>;
  },
): Promise<TenantRuntime> {
  const { env, logger } = options;
  const ports = await createAzurePorts({
    env,
    connection: storage.connection,
    names: storage.names,
    ...(options.requestCounter ? { requestCounter: options.requestCounter } : {}),
    ...(options.leases ? { leases: options.leases } : {}),
  });
  // Timers are scheduled from storage here: the run loop indexes them by due time before each save.
  // Operations running are this tenant's runner's own (one server per storage): exact, and no read per trigger.
  const operationsRunning = async () => runner.inFlight;
  const core = createHostCore({
    // A resumed operation's decisions are marked under their instance's lease (the poison rule, operation-resumption.ts).
    ports: { ...ports, leases: markingDecisions(ports.leases), dueTimers: ports.storage.dueTimers },
    logger,
    env,
    ...(options.engineOptions ? { engineOptions: options.engineOptions } : {}),
    tenant: { id: tenantId, ...(options.quotas ? { quotas: options.quotas } : {}) },
    quotaCounts: { operationsRunning },
  });
  let submit: ((trigger: Trigger) => Promise<unknown>) | undefined;
  const timers = new LocalTimerScheduler({ index: ports.storage.dueTimers, submit: (trigger) => submit!(trigger), logger, now: () => core.engine.options.clock.now(), ...options.timers });
  const runner = new LocalOperationRunner(logger, (launcher) => core.activitiesFor(launcher), {
    now: () => core.engine.options.clock.now(),
    ...options.runner,
    scheduler: options.scheduler,
    tenantId,
    armTimer: async (timer) => timers.notify(timer),
    ...(core.engine.runtime.slots ? { slotReleases: (listener) => core.engine.runtime.slots!.onRelease(listener) } : {}),
  });
  // The tenant's own pace of applications, or the scheduler's default one.
  options.scheduler.setRate(tenantId, core.quotas.quotas.applicationsPerSecond);
  const services = core.servicesFor(runner, undefined, options.stopping);
  submit = (trigger) => services.triggers.submit(trigger);
  const started = runner.resumeUnfinished(ports.operations).then((resumed) => {
    if (resumed > 0) logger.info('resumed unfinished operations', { tenantId, count: resumed });
  });
  await started;
  // Rows a crash left between a save and its relay: delivered in the background (each becomes an
  // operation, idempotently); start-up does not wait for them, stop() does. Then lifecycle events
  // recorded but not yet delivered (a crash, a restart, retries that were waiting) are queued again.
  const sweep = recoverLeftovers(services.engine, logger);
  // Timers that fell due while the server was down fire now, once each.
  timers.start();
  // Finished operation records past their retention, now and hourly (retention.ts).
  const operationDays = operationRetentionDays(env);
  const purgeOperations = () =>
    operationDays === undefined
      ? undefined
      : purgeFinishedOperations(services.operations, operationDays, core.engine.options.clock.now()).then(
          (deleted) => void (deleted > 0 && logger.info('operation records purged', { days: operationDays, deleted })),
          (error: unknown) => logger.warn('the operation purge failed; it runs again in an hour', { error: String(error) }),
        );
  // Blobs of large instance records no row references (a save that failed after writing its blob), hourly
  // too: start-up's sweep (recoverLeftovers) leaves those younger than the grace period.
  const collectOrphans = () =>
    services.engine.collectOrphans().then(
      (deleted) => void (deleted > 0 && logger.info('deleted orphaned instance blobs', { count: deleted })),
      (error: unknown) => logger.warn('could not collect orphaned instance blobs; it runs again in an hour', { error: String(error) }),
    );
  let purging = purgeOperations();
  const purgeTimer = setInterval(() => (purging = Promise.all([purgeOperations(), collectOrphans()]).then(() => undefined)), OPERATION_PURGE_INTERVAL_MS).unref();
  let stopped: Promise<void> | undefined;
  return {
    tenantId,
    core,
    runner,
    timers,
    services,
    started,
    stop() {
      stopped ??= (async () => {
        clearInterval(purgeTimer);
        await timers.stop();
        await purging;
        await sweep;
        await runner.stop();
        core.engine.stopEventDeliveries();
        // The daily cost sums this process holds, written before storage goes.
        await core.dailyCosts?.stop();
        // Lease releases still running in the background (releaseInBackground) end before storage does.
        await ports.storage.leases.settle();
      })();
      return stopped;
    },
  };
}

export async function startLocalHost(options: LocalHostOptions = {}): Promise<LocalHost> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createConsoleLogger();
  let azurite: RunningAzurite | undefined;
  let storageEnv = env;
  if (!readSetting('SIGNALBOX_STORAGE', env) && !readSetting('AzureWebJobsStorage', env) && !readSetting('AzureWebJobsStorage__accountName', env)) {
    azurite = await startEmbeddedAzurite(options.azuriteLocation ?? path.resolve(readSetting('SIGNALBOX_AZURITE_LOCATION', env) ?? '.azurite'));
    storageEnv = { ...env, SIGNALBOX_STORAGE: azurite.connectionString };
    logger.info('Azurite started', { blobPort: azurite.blobPort, queuePort: azurite.queuePort, tablePort: azurite.tablePort });
  }
  try {
    const connection = resolveStorageConnection(storageEnv);
    const baseNames = options.storageNames ?? storageNamesFrom(env);
    const deployment: TenantStorage = { connection, names: baseNames };
    // Aborted when the host stops: requests waiting for an operation (`Prefer: wait`) answer at once.
    const stopping = new AbortController();
    setMaxListeners(0, stopping.signal); // one listener per waiting request
    // One scheduler for every tenant's runner: a tenant's broadcast cannot starve another's single trigger.
    const scheduler = options.runner?.scheduler ?? fairSchedulerFromSettings(options.runner?.concurrency ?? 16, env);
    const defaultRuntime = await startTenantRuntime(DEFAULT_TENANT_ID, deployment, { ...options, env, logger, stopping: stopping.signal, scheduler });
    const { core, runner, timers } = defaultRuntime;
    const registry = new TableTenantRegistry(createTableClient(connection, tenantRegistryTable(baseNames)));
    await registry.ensureTable();
    let tenantCores: TenantCores<TenantRuntime> | undefined;
    const tenants = createTenantAdministration({
      registry,
      deployment,
      env,
      now: () => core.engine.options.clock.now(),
      logger,
      // The tenant's runner, timers and requests stop before its storage goes.
      onDeleting: async (tenantId) => void (await (await tenantCores?.forget(tenantId))?.stop()),
    });
    tenantCores = new TenantCores<TenantRuntime>(
      registry,
      (record) =>
        startTenantRuntime(record.id, tenantStorageOf(record.id, record.storage, deployment, env), {
          ...options,
          env,
          logger,
          stopping: stopping.signal,
          scheduler,
          ...(record.quotas ? { quotas: record.quotas } : {}),
        }),
      async () => defaultRuntime,
    );
    const services: ApiServices = { ...defaultRuntime.services, tenants };
    const portSetting = readSetting('PORT', env);
    const apiKey = readSetting('SIGNALBOX_API_KEY', env);
    const createBodyLimit = maxCreateBodyBytes(env);
    const server: RunningServer = await startLocalServer(services, {
      port: options.port ?? (portSetting ? Number(portSetting) : 7071),
      logger,
      cors: { allowedOrigins: corsAllowedOrigins(env) },
      serverNames: serverNames(env),
      ...(apiKey ? { apiKey } : {}),
      ...(createBodyLimit !== undefined ? { maxCreateBodyBytes: createBodyLimit } : {}),
      access: accessPolicyFromEnv(env),
      ...(options.consoleFolder ? { consoleFolder: options.consoleFolder } : {}),
      tenants: async (tenantId) => {
        const runtime = await tenantCores.get(tenantId);
        return runtime && { ...runtime.services, tenants };
      },
    });
    // Every tenant's unfinished operations, leftovers and timers, as the default tenant's (each starts its runtime);
    // then deletions a crash or restart interrupted.
    const startingTenants = tenantCores.all().then(
      () => tenants.resumeDeletions(),
      (error: unknown) => logger.warn('could not start every tenant; each starts at its first request', { error: String(error) }),
    );
    await defaultRuntime.started;
    return {
      url: server.url,
      core,
      runner,
      timers,
      tenants,
      tenantRuntime: async (tenantId) => tenantCores.get(tenantId),
      ...(azurite ? { azurite } : {}),
      async stop() {
        stopping.abort();
        await server.close();
        await startingTenants;
        await tenants.settle();
        await Promise.all((await tenantCores.built()).map((runtime) => runtime.stop()));
        await defaultRuntime.stop();
        await azurite?.stop();
      },
    };
  } catch (error) {
    await azurite?.stop();
    throw error;
  }
}
