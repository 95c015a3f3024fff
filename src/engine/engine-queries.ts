/**
 * @module The facade's queries: instances, their history, offers and events, why they wait, search, and
 * dry runs. None takes a lease or changes anything (a search may repair index rows, search-repair.ts).
 */
import type { DryRunResult } from './decide/dry-run';
import { NotFoundError } from './model/errors';
import type { AttemptResult, EventDeliveryTarget } from './runtime/event-delivery';
import type { LifecycleEventRecord } from './decide/lifecycle-events';
import type { HistoryEntry, StoredInstance } from './model/instance';
import type { InstanceAtEntry } from './model/history-rebuild';
import { diffWorkflowVersions, type VersionChange } from './analysis/version-diff';
import type { InstanceQuery, OperationOptions, Page, PageOptions } from './ports/ports';
import type { Trigger } from './model/trigger';
import type { TriggerOffer } from './decide/offers';
import type { WaitingAnswer } from './analysis/why-waiting';
import type { WaitingSummary } from './analysis/waiting-summary';
import type { SearchField } from './definition/search-indexes';
import { InstanceSearch, type CountRequest, type CountResult, type SearchPage, type SearchRequest } from './search/instance-search';
import { MAX_DRY_RUN_CANDIDATES } from './engine-core';
import { EngineWorkflows } from './engine-workflows';

export abstract class EngineQueries extends EngineWorkflows {
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

  /** The instance as it was after history entry `sequence`, rebuilt from the entries' records (time travel). NotFoundError for no such instance or entry. */
  getInstanceAtEntry(instanceId: string, sequence: number, options?: OperationOptions): Promise<InstanceAtEntry & { readonly workflowVersion: number }> {
    return this.reads.atEntry(instanceId, sequence, options);
  }

  /**
   * What changed from version `a` to version `b` of a workflow (analysis/version-diff.ts), each change with the
   * instances it touches: those in the state it is about (listed by state, any version; 0 for a
   * state added), or all of the workflow's for a change of its own parts. NotFoundError for a missing version.
   */
  async diffVersions(workflowId: string, a: number, b: number, options?: OperationOptions): Promise<{ readonly changes: readonly (VersionChange & { readonly instances: number })[] }> {
    const [from, to] = await Promise.all([this.getWorkflow(workflowId, a, options), this.getWorkflow(workflowId, b, options)]);
    const changes = diffWorkflowVersions(from.definition, to.definition);
    if (changes.length === 0) return { changes: [] };
    const inState = async (stateId?: string): Promise<number> => {
      let count = 0;
      let continuationToken: string | undefined;
      do {
        const page = await this.listInstances({ workflowId, ...(stateId ? { stateId } : {}) }, { maxPageSize: 1000, ...(continuationToken ? { continuationToken } : {}), ...options });
        count += page.items.length;
        continuationToken = page.continuationToken;
      } while (continuationToken);
      return count;
    };
    const counted = await Promise.all(changes.map((change) => (change.kind === 'stateAdded' ? 0 : inState(change.kind === 'workflowChanged' ? undefined : change.stateId))));
    return { changes: changes.map((change, index) => ({ ...change, instances: counted[index]! })) };
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

  /** Resolves when the in-process event dispatcher has nothing queued (tests). */
  eventDeliveriesIdle(): Promise<void> {
    return this.events.idle();
  }

  /** Stops in-process event delivery (pending deliveries stay recorded for the next start). */
  stopEventDeliveries(): void {
    this.events.stop();
  }
}
