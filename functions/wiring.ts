/**
 * @module The Functions app's wiring: one HostCore (storage ports, engine) per worker process, built on
 * first use from the app settings, and per invocation the API services and trigger activities bound to
 * that invocation's durable client, which starts trigger orchestrations.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import type { DurableClient } from 'durable-functions';
import { createAzurePorts } from '../src/host/azure-ports';
import type { ApiServices } from '../src/host/http/types';
import type { Environment } from '../src/host/settings';
import type { TriggerActivities } from '../src/host/trigger-activities';
import type { Logger } from '../src/host/trigger-activity-service';
import type { OperationLauncher } from '../src/host/trigger-submitter';
import { createHostCore, type HostCore } from '../src/host/wiring';
import { timerOrchestrationId } from '../src/host/timer-activities';
import { TIMER_ORCHESTRATOR } from './timer-orchestrator';
import { TRIGGER_ORCHESTRATOR, type TriggerOrchestratorInput } from './trigger-orchestrator';

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

function logLine(level: 'info' | 'warn' | 'error', message: string, properties?: Record<string, unknown>): void {
  const args = properties ? [message, properties] : [message];
  const context = currentInvocation.getStore();
  if (context) context[level](...args);
  else console[level](...args);
}

let core: Promise<HostCore> | undefined;

/** The worker's HostCore, built once; a failed build (storage unreachable) is retried on next use. */
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
}

/** Runtime statuses after which starting the same instance id again is allowed and useful. */
const restartable = new Set<string>([df.OrchestrationRuntimeStatus.Failed, df.OrchestrationRuntimeStatus.Terminated]);

/**
 * Starts the trigger orchestration of an operation, with the operation id as its instance id. Idempotent:
 * an instance that exists is left alone (a finished one records its operation; a running one is busy),
 * unless it failed or was terminated, which leaves its operation unfinished: that one is started anew,
 * and `beginOperation` makes a run over an already finished operation a no-op.
 */
export function durableLauncher(client: Pick<DurableClient, 'getStatus' | 'startNew'>): OperationLauncher {
  /** The runtime status of an orchestration instance, undefined when there is none. */
  const statusOf = (instanceId: string) =>
    client.getStatus(instanceId).catch((error: unknown) => {
      // durable-functions reports a missing instance only as an Error whose message says 404.
      if (error instanceof Error && /\b404\b/.test(error.message)) return undefined;
      throw error;
    });
  return {
    /**
     * Starts the timer's orchestration (timer-orchestrator.ts) under an instance id derived from the
     * timer id: arming the same timer again finds it and does nothing (unless it failed or was
     * terminated, when it starts anew; firing twice is harmless, the operation id is the timer id).
     */
    async armTimer(timer) {
      const instanceId = timerOrchestrationId(timer.timerId);
      const status = await statusOf(instanceId);
      if (status && !restartable.has(status.runtimeStatus)) return;
      await client.startNew(TIMER_ORCHESTRATOR, { instanceId, input: timer });
    },
    async start(operationId, options = {}) {
      // An operation this request just recorded has no orchestration yet: skip the status round trip.
      const status = options.isNew ? undefined : await statusOf(operationId);
      if (status && !restartable.has(status.runtimeStatus)) return;
      const input: TriggerOrchestratorInput = { operationId };
      await client.startNew(TRIGGER_ORCHESTRATOR, { instanceId: operationId, input });
    },
  };
}

let sweptLeftovers = false;

/**
 * The start-up sweep of outbox rows a crash left between a save and its relay, run once per worker at
 * its first HTTP invocation (the first moment a durable client is at hand to start their operations).
 * In the background: a request never waits for it; a failure is logged and the rows wait for the next
 * load of their instance.
 */
function sweepOnce(services: ApiServices): void {
  if (sweptLeftovers) return;
  sweptLeftovers = true;
  services.engine.relayLeftovers().then(
    (count) => count > 0 && invocationLogger.info('delivered leftover outbox rows', { count }),
    (error: unknown) => invocationLogger.warn('the outbox sweep failed; rows wait for their instance to be loaded', { error: String(error) }),
  );
}

export async function servicesFor(context: InvocationContext): Promise<ApiServices> {
  const services = (await hostCore()).servicesFor(durableLauncher(df.getClient(context)));
  if (services.engine) sweepOnce(services);
  return services;
}

/** Activities have a durable client too: triggers raised by actions start their own orchestrations. */
export async function activitiesFor(context: InvocationContext): Promise<TriggerActivities> {
  return (await hostCore()).activitiesFor(durableLauncher(df.getClient(context)));
}
