/**
 * @module The facade's instance commands: create, apply a trigger (one instance, or every candidate),
 * recover, retry a fault, cancel, suspend, resume, delete, reindex; each through the run loop
 * (instance-runtime.ts), then its follow-up relayed (engine-follow-up.ts). Also the start-up sweeps.
 */
import type { RecoveryRepair } from './decide/decide-recover';
import { createInstanceInputSchema, type CreateInstanceInput, type NewInstance } from './decide/decide-create';
import { TriggerOutcome } from './model/enums';
import { NotFoundError } from './model/errors';
import type { StoredInstance } from './model/instance';
import type { ApplyTriggerOptions } from './runtime/instance-runtime';
import { accumulateResults, emptyTotals, type InstanceResult } from './operations/operation';
import { FanOut, failureReason } from './operations/fan-out';
import { onePage } from './ports/paging';
import { ORPHAN_GRACE_PERIOD_MS } from './ports/ports';
import { timerTrigger, type DueTimer } from './decide/timers';
import type { OperationOptions, PageOptions } from './ports/ports';
import type { Trigger } from './model/trigger';
import { withSpan } from './runtime/tracing';
import { parseWith } from './model/validation';
import { createClaimingKeys } from './admission/unique-keys';
import type { ActingOptions, CreateOptions } from './engine-core';
import { EngineQueries } from './engine-queries';

export abstract class EngineInstanceCommands extends EngineQueries {
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
      if (options.followUp === 'afterAnswer') this.followUps.afterAnswer(created);
      else await this.followUps.relayAfter(created, options);
      return { instance: created.instance, created: true };
    });
  }

  /** Writes one instance's search rows (a reindex); false when it does not exist. */
  reindexInstance(instanceId: string, options?: OperationOptions): Promise<boolean> {
    return this.runtime.reindex(instanceId, options);
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
      await this.followUps.relayAfter(decided, options);
      return result;
    });
  }

  /**
   * Returns a faulted instance to `stateId`, re-running its entry conditions and actions; `repair` may
   * patch the context first (decide-recover.ts) and says who asked.
   */
  recover(instanceId: string, stateId: string, options: ActingOptions = {}, repair?: RecoveryRepair): Promise<StoredInstance> {
    return withSpan('Engine.recover', { instanceId, stateId }, async () => this.followUps.changed(instanceId, await this.runtime.recover(instanceId, stateId, options, undefined, repair), options));
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
      await this.followUps.relayAfter(decided, options);
      return decided.decision.result;
    });
  }

  /** Cancels an instance; ConflictError if it is complete or cancelled already. */
  cancel(instanceId: string, options: ActingOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.cancel', { instanceId }, async () => this.followUps.changed(instanceId, await this.runtime.cancel(instanceId, options), options));
  }

  /** Suspends a waiting instance (ConflictError otherwise): it takes no triggers until resumed. */
  suspend(instanceId: string, options: ActingOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.suspend', { instanceId }, async () => this.followUps.changed(instanceId, await this.runtime.suspend(instanceId, options), options));
  }

  /** Makes a suspended instance waiting again (ConflictError otherwise). */
  resume(instanceId: string, options: ActingOptions = {}): Promise<StoredInstance> {
    return withSpan('Engine.resume', { instanceId }, async () => this.followUps.changed(instanceId, await this.runtime.resume(instanceId, options), options));
  }

  /**
   * Deletes the instance with its history, outbox rows, interest index rows and lease: NotFoundError if
   * absent, ConflictError while it is waiting or initializing unless `force`. Safe to repeat after a crash.
   */
  deleteInstance(instanceId: string, options: OperationOptions & { force?: boolean } = {}): Promise<void> {
    return withSpan('Engine.deleteInstance', { instanceId }, async () => {
      const decided = await this.runtime.delete(instanceId, options.force ?? false, options);
      if (!decided.decision) throw new NotFoundError(`Instance "${instanceId}" does not exist`);
      await this.followUps.relayAfter(decided, options);
    });
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
}
