/**
 * @module The Functions app's wiring: one HostCore (storage ports, engine) per worker process, built on
 * first use from the app settings, and per invocation the API services and trigger activities bound to
 * that invocation's durable client, which starts trigger orchestrations.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import type { DurableClient } from 'durable-functions';
import { redactSecrets } from '../src/engine/model';
import { createAzurePorts } from '../src/host/azure-ports';
import type { ApiServices } from '../src/host/http/types';
import type { Environment } from '../src/host/settings';
import type { OperationActivities } from '../src/host/contracts/operation-activities';
import type { Logger } from '../src/host/operation-activity-service';
import type { OperationLauncher } from '../src/host/trigger-submitter';
import { createHostCore, type HostCore } from '../src/host/host-services';
import { durableEventLauncher } from './event-launcher';
import { timerOrchestrationId, type FireTimerInput } from '../src/host/contracts/timer-activities';
import { tenantInstanceId, tenantScope } from '../src/host/contracts/tenant-scope';
import { storageNamesFrom } from '../src/host/azure-ports';
import { resolveStorageConnection, StorageNotConfiguredError } from '../src/host/storage-connection';
import { createTableClient, TableTenantRegistry, tenantRegistryTable } from '../src/storage';
import { DEFAULT_TENANT_ID, tenantStorageOf, type TenantAdministration } from '../src/host/tenants';
import { createTenantAdministration } from '../src/host/tenant-administration';
import { TenantCores } from '../src/host/tenant-cores';
import { TIMER_ORCHESTRATOR } from './timer-orchestrator';
import { OPERATION_ORCHESTRATOR, type OperationOrchestratorInput } from './operation-orchestrator';

const currentInvocation = new AsyncLocalStorage<InvocationContext>();

/** Runs `work` with `context` as the target of the worker's log lines. */
export function inInvocation<T>(context: InvocationContext, work: () => Promise<T>): Promise<T> {
  return currentInvocation.run(context, work);
}

/** Logs through the current invocation's context, so the host ties each line to its invocation. */
export const invocationLogger: Logger = {
  info: (message, properties) => logLine('info', message, properties),
  warn: (message, properties) => logLine('warn', message, properties),
  error: (message, properties) => logLine('error', message, properties),
};

/**
 * Secrets in URLs (userinfo, query values, fragment) are redacted from the message and every property, as
 * the local server's logger does (src/host/local/logger.ts): a log line is the last place a key could leave by.
 */
function logLine(level: 'info' | 'warn' | 'error', message: string, properties?: Record<string, unknown>): void {
  const args = properties ? [redactSecrets(message), redactSecrets(properties)] : [redactSecrets(message)];
  const context = currentInvocation.getStore();
  if (context) context[level](...args);
  else console[level](...args);
}

let core: Promise<HostCore> | undefined;

/** The worker's HostCore of the default tenant, built once; a failed build (storage unreachable) is retried on next use. */
export function hostCore(env: Environment = process.env): Promise<HostCore> {
  if (!core) {
    const building = createAzurePorts({ env }).then((ports) => createHostCore({ ports, logger: invocationLogger, env }));
    building.catch(() => {
      if (core === building) core = undefined;
    });
    core = building;
  }
  return core;
}

/** Replaces the worker's HostCore (tests run the registered functions against their own storage). */
export function setHostCore(value: HostCore | undefined): void {
  core = value ? Promise.resolve(value) : undefined;
  tenancy = undefined;
}

interface Tenancy {
  readonly cores: TenantCores<HostCore>;
  readonly administration: TenantAdministration;
}
let tenancy: Tenancy | undefined;

/**
 * The worker's tenants: the registry in the default tenant's storage, and a HostCore per tenant built on
 * first use (its own tables and container). Tests that set a HostCore of their own get the registry of
 * its storage names.
 */
function tenants(env: Environment = process.env): Tenancy {
  if (!tenancy) {
    const connection = resolveStorageConnection(env);
    const names = storageNamesFrom(env);
    const registry = new TableTenantRegistry(createTableClient(connection, tenantRegistryTable(names)));
    const deployment = { connection, names };
    let cores: TenantCores<HostCore> | undefined;
    const administration = createTenantAdministration({
      registry,
      deployment,
      env,
      now: () => new Date(),
      logger: invocationLogger,
      // A worker forgets a deleted tenant's core; other workers find its record marked and serve it no more.
      onDeleting: async (tenantId) => void (await cores?.forget(tenantId)),
    });
    cores = new TenantCores<HostCore>(
      registry,
      async (record) => {
        const storage = tenantStorageOf(record.id, record.storage, deployment, env);
        const ports = await createAzurePorts({ env, names: storage.names, connection: storage.connection });
        // The tenant's own quotas (its registry record's overrides over the SIGNALBOX_QUOTA_* defaults).
        return createHostCore({ ports, logger: invocationLogger, env, tenant: { id: record.id, ...(record.quotas ? { quotas: record.quotas } : {}) } });
      },
      () => hostCore(env),
    );
    tenancy = { cores, administration };
  }
  return tenancy;
}

/** The HostCore of `tenantId`, undefined when the tenant does not exist (or is being deleted). */
export function tenantHostCore(tenantId: string): Promise<HostCore | undefined> {
  return tenantId === DEFAULT_TENANT_ID ? hostCore() : tenants().cores.get(tenantId);
}

/** Every tenant's HostCore, the default tenant's first (the recovery and retention sweeps). */
export async function everyTenantCore(): Promise<{ readonly tenantId: string; readonly core: HostCore }[]> {
  try {
    return await tenants().cores.all();
  } catch (error) {
    // The registry unreadable: the default tenant's sweep still runs; the others wait for the next one.
    invocationLogger.warn('could not list the tenants; sweeping the default tenant only', { error: String(error) });
    return [{ tenantId: DEFAULT_TENANT_ID, core: await hostCore() }];
  }
}

/** The tenant administration (/api/tenants, the recovery sweep resumes deletions). */
export function tenantAdministration(): TenantAdministration {
  return tenants().administration;
}

/** The tenant administration when storage is configured (tests that set a HostCore of their own may configure none). */
function knownTenantAdministration(): TenantAdministration | undefined {
  try {
    return tenantAdministration();
  } catch (error) {
    if (error instanceof StorageNotConfiguredError) return undefined;
    throw error;
  }
}

/** A tenant that is gone while durable work of it was still running: the work fails, it has nowhere to run. */
export class TenantGoneError extends Error {
  constructor(tenantId: string) {
    super(`tenant "${tenantId}" does not exist (deleted while its work was running)`);
    this.name = 'TenantGoneError';
  }
}

/**
 * How often a `Prefer: wait` asks the durable extension for an orchestration's status (durable's own
 * default is 1 s, too coarse for an operation that takes tens of milliseconds).
 */
export const DURABLE_STATUS_INTERVAL_IN_MS = 100;

/** Runtime statuses after which starting the same instance id again is allowed and useful. */
const restartable = new Set<string>([df.OrchestrationRuntimeStatus.Failed, df.OrchestrationRuntimeStatus.Terminated]);

/**
 * Starts the trigger orchestration of an operation, with the operation id as its instance id. Idempotent:
 * an instance that exists is left alone (a finished one records its operation; a running one is busy),
 * unless it failed or was terminated, which leaves its operation unfinished: that one is started anew,
 * and `beginOperation` makes a run over an already finished operation a no-op.
 */
export function durableLauncher(
  client: Pick<DurableClient, 'getStatus' | 'startNew' | 'waitForCompletionOrCreateCheckStatusResponse'>,
  tenantId: string = DEFAULT_TENANT_ID,
  /** The tenant's fan-out quota (batches in flight per operation, tenant-quotas.ts); absent: the full window. */
  batchesInFlight?: number,
): OperationLauncher {
  /** The runtime status of an orchestration instance (of this tenant), undefined when there is none. */
  const statusOf = (instanceId: string) =>
    client.getStatus(tenantInstanceId(tenantId, instanceId)).catch((error: unknown) => {
      if (isMissingInstance(error)) return undefined;
      throw error;
    });
  return {
    /**
     * `Prefer: wait` on Azure: durable-functions' own waitForCompletionOrCreateCheckStatusResponse, which
     * asks the durable extension for the orchestration's status every `retryIntervalInMilliseconds`
     * until it completes, fails or is terminated, or the time runs out (then a 202 check-status
     * response). Any of those ends means the operation record is as final as it will get: the route
     * reads it once. The status asks go to the extension (its instance table), never to the operation
     * store. No HttpRequest is passed: its only use is the check-status links, which are not answered.
     */
    async waitUntilFinished(operationId, timeoutInMs) {
      if (timeoutInMs <= 0) return 'pending';
      try {
        const response = await client.waitForCompletionOrCreateCheckStatusResponse(undefined as never, tenantInstanceId(tenantId, operationId), {
          timeoutInMilliseconds: timeoutInMs,
          retryIntervalInMilliseconds: Math.min(timeoutInMs, DURABLE_STATUS_INTERVAL_IN_MS),
        });
        return response.status === 202 ? 'pending' : 'finished';
      } catch (error) {
        // No orchestration (yet, or any more: purged): the record alone can tell, so the route polls it.
        if (isMissingInstance(error)) return 'unknown';
        throw error;
      }
    },
    /**
     * Starts the timer's orchestration (timer-orchestrator.ts) under an instance id derived from the
     * timer id: arming the same timer again finds it and does nothing (unless it failed or was
     * terminated, when it starts anew; firing twice is harmless, the operation id is the timer id).
     */
    async armTimer(timer) {
      const instanceId = timerOrchestrationId(timer.timerId);
      const status = await statusOf(instanceId);
      if (status && !restartable.has(status.runtimeStatus)) return;
      const input: FireTimerInput = { ...timer, ...tenantScope(tenantId) };
      await client.startNew(TIMER_ORCHESTRATOR, { instanceId: tenantInstanceId(tenantId, instanceId), input });
    },
    async start(operationId, options = {}) {
      // An operation this request just recorded has no orchestration yet: skip the status round trip.
      const status = options.isNew ? undefined : await statusOf(operationId);
      if (status && !restartable.has(status.runtimeStatus)) return;
      const input: OperationOrchestratorInput = {
        operationId,
        ...tenantScope(tenantId),
        ...(batchesInFlight !== undefined ? { batchesInFlight } : {}),
        // Orchestrations started from now on apply an operation of one instance without a batch sub-orchestration.
        applyOneInstanceDirectly: true,
        // What this request sent to record it (decision 0021), carried to the completion.
        ...(options.isNew && options.cost ? { submitted: options.cost.snapshot() } : {}),
      };
      await client.startNew(OPERATION_ORCHESTRATOR, { instanceId: tenantInstanceId(tenantId, operationId), input });
    },
  };
}

/** The core's tenant and its fan-out quota, for the orchestrations its launcher starts. */
function fanOutBatchesOf(core: Pick<HostCore, 'quotas'>): number | undefined {
  // A core without quotas (a stand-in) starts orchestrations with the full window.
  const { quotas } = core as Partial<Pick<HostCore, 'quotas'>>;
  return quotas?.quotas.fanOutBatches;
}

/** durable-functions reports a missing instance only as an Error whose message says 404. */
function isMissingInstance(error: unknown): boolean {
  return error instanceof Error && /\b404\b/.test(error.message);
}

/** The services of `tenantId` (the default tenant's carry the tenant administration); undefined for a tenant that does not exist. */
export async function servicesFor(context: InvocationContext, tenantId: string = DEFAULT_TENANT_ID): Promise<ApiServices | undefined> {
  const core = await tenantHostCore(tenantId);
  return core && servicesOfCore(context, tenantId, core);
}

/** The services of a tenant whose core is at hand (the sweeps list every tenant's): no second lookup of the core. */
export function servicesOfCore(context: InvocationContext, tenantId: string, core: HostCore): ApiServices {
  const client = df.getClient(context);
  // Leftover outbox rows and pending event deliveries are recovered by one timer function (recovery.ts),
  // not at each worker's first call: N workers cost one sweep.
  const services = core.servicesFor(durableLauncher(client, tenantId, fanOutBatchesOf(core)), durableEventLauncher(client, tenantId));
  if (tenantId !== DEFAULT_TENANT_ID) return services;
  const administration = knownTenantAdministration();
  return administration ? { ...services, tenants: administration } : services;
}

/** The services of a tenant whose durable work is running: it must exist. */
export async function servicesOfTenant(context: InvocationContext, tenantId: string): Promise<ApiServices> {
  const services = await servicesFor(context, tenantId);
  if (!services) throw new TenantGoneError(tenantId);
  return services;
}

/** Activities have a durable client too: triggers raised by actions start their own orchestrations, in the same tenant. */
export async function activitiesFor(context: InvocationContext, tenantId: string = DEFAULT_TENANT_ID): Promise<OperationActivities> {
  const core = await tenantHostCore(tenantId);
  if (!core) throw new TenantGoneError(tenantId);
  const client = df.getClient(context);
  return core.activitiesFor(durableLauncher(client, tenantId, fanOutBatchesOf(core)), durableEventLauncher(client, tenantId));
}
