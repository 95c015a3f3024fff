/**
 * @module The engine's side of migrations and bulk actions: selecting the instances a request covers,
 * a page at a time (the hosts' operation fan-out pages it exactly as it pages a trigger's candidates),
 * the migration's dry-run report, and the step applied to one instance under its lease, through the
 * run loop (instance-runtime.ts) like every other change. The requests are validated by operation-requests.ts.
 */
import { isAutomaticTransition, type WorkflowDefinition } from './definition/definition';
import { migrationVerdict } from './decide/decide-migrate';
import type { ChangeOptions, AppliedDecision, InstancePrecondition, InstanceRuntime } from './runtime/instance-runtime';
import type { Engine, EnginePorts } from './engine';
import { ActionOutcome, TriggerOutcome } from './model/enums';
import { ConflictError } from './model/errors';
import type { HistoryEntry, StoredInstance } from './model/instance';
import { operationResult, type InstanceResult } from './operations/operation';
import { appliedRecord, duplicateResult } from './decide/instance-changes';
import { BulkAction, bulkDoneOutcome, matchesSelection, migrationSelection, type BulkRequest, type InstanceSelection, type MigrationRequest } from './decide/operation-work';
import { parseBulkRequest, parseMigrationRequest } from './operation-requests';
import { onePage, pagedList } from './ports/paging';
import type { OperationOptions, Page, PageOptions } from './ports/ports';

/** History entries read to find the change a bulk operation made before it was resumed (doneAlready). */
const LAST_ENTRIES_READ = 16;

/** Instance ids listed per state in a dry-run report. */
export const MIGRATION_SAMPLE_SIZE = 5;

export interface MigrationReportRow {
  readonly fromStateId: string;
  readonly toStateId: string;
  readonly count: number;
  readonly sample: readonly string[];
  /**
   * The automatic transitions of `toStateId`, in the order they are tried: a waiting instance takes the
   * first whose conditions hold (or the `otherwise` one) in the migration's change. Not evaluated here.
   */
  readonly automaticTransitions?: readonly { readonly transitionId: string; readonly targetStateId: string; readonly otherwise?: true }[];
}

export interface MigrationBlockedRow {
  readonly fromStateId: string;
  readonly reason: string;
  readonly count: number;
  readonly sample: readonly string[];
}

export interface MigrationReport {
  readonly fromVersion: number;
  readonly toVersion: number;
  /** Instances that would move, per source and target state. */
  readonly rows: readonly MigrationReportRow[];
  /** Instances that cannot move, per source state and reason. */
  readonly blocked: readonly MigrationBlockedRow[];
}

export class MigrationsAndBulkActions {
  constructor(
    private readonly engine: Engine,
    private readonly ports: EnginePorts,
    private readonly runtime: InstanceRuntime,
    private readonly relayAfter: (decided: AppliedDecision, options: OperationOptions) => Promise<void>,
  ) {}

  /** Validates a migration request for `workflowId` (operation-requests.ts). */
  parseMigration(workflowId: string, input: unknown, options: OperationOptions = {}): Promise<{ request: MigrationRequest; dryRun: boolean }> {
    return parseMigrationRequest((...args) => this.engine.getWorkflow(...args), workflowId, input, options);
  }

  /** Validates a bulk request (operation-requests.ts). */
  parseBulk(input: unknown, options: OperationOptions = {}): Promise<BulkRequest> {
    return parseBulkRequest((...args) => this.engine.getWorkflow(...args), input, options);
  }

  /**
   * One page of the ids a selection covers: a query of the workflow's instances (or, with `subject`, a
   * page of the interest index), filtered by the rest of the selection. Pages may be short (filtered);
   * each instance is checked again under its lease. Instances being deleted are only listed for
   * `includeDeleting` (a repeated purge finishes them).
   */
  async selectPage(selection: InstanceSelection, pageOptions: PageOptions = {}, includeDeleting = false): Promise<Page<string>> {
    if (selection.subject !== undefined) return onePage(this.ports.interests.findCandidates([selection.subject], pageOptions));
    const page = await this.queryInstances(selection, pageOptions, includeDeleting);
    const items = page.items.map((instance) => instance.id);
    return page.continuationToken ? { items, continuationToken: page.continuationToken } : { items };
  }

  /** What a migration would do, changing nothing: counts per source and target state, and what cannot move and why. */
  async migrationReport(request: MigrationRequest, options: OperationOptions = {}): Promise<MigrationReport> {
    const target = (await this.engine.getWorkflow(request.workflowId, request.toVersion, options)).definition;
    const rows = new Map<string, { fromStateId: string; toStateId: string; count: number; sample: string[]; automaticTransitions?: MigrationReportRow['automaticTransitions'] }>();
    const blocked = new Map<string, { fromStateId: string; reason: string; count: number; sample: string[] }>();
    const selection = migrationSelection(request);
    const instances = pagedList((page) => this.queryInstances(selection, page), { ...options, maxPageSize: 1000 });
    // Full states refuse what exceeds their room (`notMigratable`), predicted from the rows as they stand.
    const forecast = this.runtime.capacityForecast(options);
    for await (const instance of instances) {
      const moves = migrationVerdict(request, target, instance);
      const refused = moves.move && forecast ? await forecast.refusal(target, instance, moves.toStateId) : undefined;
      const verdict = refused === undefined ? moves : { move: false as const, reason: refused };
      const row = verdict.move
        ? getOrAdd(rows, `${instance.stateId}\u0000${verdict.toStateId}`, () => ({
            fromStateId: instance.stateId,
            toStateId: verdict.toStateId,
            count: 0,
            sample: [],
            ...automaticOf(target, verdict.toStateId),
          }))
        : getOrAdd(blocked, `${instance.stateId}\u0000${verdict.reason}`, () => ({ fromStateId: instance.stateId, reason: verdict.reason, count: 0, sample: [] }));
      row.count += 1;
      if (row.sample.length < MIGRATION_SAMPLE_SIZE) row.sample.push(instance.id);
    }
    const byState = <T extends { fromStateId: string }>(a: T, b: T) => (a.fromStateId < b.fromStateId ? -1 : a.fromStateId > b.fromStateId ? 1 : 0);
    return { fromVersion: request.fromVersion, toVersion: request.toVersion, rows: [...rows.values()].sort(byState), blocked: [...blocked.values()].sort(byState) };
  }

  /**
   * Migrates one instance under its lease: `migrated`, `skipped`, `notMigratable` (why in `error`) or
   * `notFound`. With `options.operationId`, an instance that operation migrated already (before a crash)
   * is `migrated`, as it was, and not changed again.
   */
  async migrate(instanceId: string, request: MigrationRequest, options: ChangeOptions = {}): Promise<InstanceResult> {
    const target = (await this.engine.getWorkflow(request.workflowId, request.toVersion, options)).definition;
    // The operation's id goes with the request to the decision, which records it on the instance (Instance.migratedBy).
    const applied: MigrationRequest = options.operationId !== undefined ? { ...request, operationId: options.operationId } : request;
    const decided = await this.runtime.migrate(instanceId, applied, target, request.actor ? { ...options, actor: request.actor } : options);
    await this.relayAfter(decided, options);
    return decided.decision?.result ?? { instanceId, outcome: TriggerOutcome.notFound };
  }

  /**
   * Applies a bulk action to one instance under its lease, its filter checked again there (`skipped`
   * when it no longer matches). A status that does not allow the action is `conflict`, with why. An
   * instance this operation changed already (before a crash: doneAlready) is reported with what it did.
   */
  async applyBulk(instanceId: string, request: BulkRequest, options: ChangeOptions = {}): Promise<InstanceResult> {
    const guard: InstancePrecondition = (stored: StoredInstance) =>
      matchesSelection(stored, request.filter) ? undefined : { instanceId, outcome: ActionOutcome.skipped, fromStateId: stored.stateId, error: 'no longer matches the filter' };
    let decided: AppliedDecision;
    try {
      decided = await this.decideBulk(instanceId, request, request.actor ? { ...options, actor: request.actor } : options, guard);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return (await this.doneAlready(instanceId, request, options)) ?? { instanceId, outcome: ActionOutcome.conflict, error: error.message };
    }
    await this.relayAfter(decided, options);
    const result = decided.decision?.result;
    if (!result) return { instanceId, outcome: TriggerOutcome.notFound };
    // A retry offered again by its own operation (an activity retried after its answer was lost, a run
    // resumed after a crash) finds the instance no longer faulted: it reports what its retry did, as recorded.
    if (request.action === BulkAction.retry && result.outcome === ActionOutcome.skipped) return (await this.retriedBy(instanceId, options)) ?? result;
    if (result.outcome === ActionOutcome.skipped) return (await this.doneAlready(instanceId, request, options)) ?? result;
    // The decisions answer `transitioned` for what they did (recovery may fault again: `faulted` stays; a retry reports its trigger's outcome).
    return result.outcome === TriggerOutcome.transitioned ? { ...result, outcome: bulkDoneOutcome(request.action) } : result;
  }

  /**
   * What this operation did to the instance already, when its latest history entries are its change:
   * offered again by the operation resumed after a crash (the change was saved, the checkpoint counting it
   * was not), the instance refuses the action (`conflict`) or no longer matches the filter (`skipped`),
   * because of that change. Reported as that change: the action's outcome, from the state it left to the
   * one it reached. One read of the instance and one of its last entries, on those paths only.
   */
  private async doneAlready(instanceId: string, request: BulkRequest, options: ChangeOptions): Promise<InstanceResult | undefined> {
    if (!options.operationId) return undefined;
    const instance = await this.ports.instances.get(instanceId, options);
    if (!instance || instance.deleting || instance.historyLength === 0) return undefined;
    const from = Math.max(0, instance.historyLength - LAST_ENTRIES_READ);
    const entries = (await onePage(this.ports.history.list(instanceId, { ...options, fromSequence: from, maxPageSize: LAST_ENTRIES_READ }))).items;
    const last = entries.at(-1);
    if (last?.operationId !== options.operationId) return undefined;
    // The change's first entry (a recovery is followed by the automatic transitions it took, one entry each).
    let first = entries.length - 1;
    while (first > 0 && entries[first - 1]!.operationId === options.operationId) first -= 1;
    const fromStateId = entries[first]!.fromStateId;
    return { instanceId, outcome: bulkDoneOutcome(request.action), ...(fromStateId !== null ? { fromStateId } : {}), toStateId: last.toStateId };
  }

  /** The instance and its latest history entry, when that entry is the change of `options.operationId`. */
  private async lastChangeBy(instanceId: string, options: ChangeOptions): Promise<{ instance: StoredInstance; entry: HistoryEntry } | undefined> {
    if (!options.operationId) return undefined;
    const instance = await this.ports.instances.get(instanceId, options);
    if (!instance || instance.deleting || instance.historyLength === 0) return undefined;
    const last = await onePage(this.ports.history.list(instanceId, { ...options, fromSequence: instance.historyLength - 1, maxPageSize: 1 }));
    const entry = last.items[0];
    return entry?.operationId === options.operationId ? { instance, entry } : undefined;
  }

  /** What this operation's retry of the instance did, from the instance's record of the retried trigger (undefined: it made no retry of it). */
  private async retriedBy(instanceId: string, options: ChangeOptions): Promise<InstanceResult | undefined> {
    const last = await this.lastChangeBy(instanceId, options);
    const triggerId = last?.entry.triggerId;
    const record = triggerId ? appliedRecord(last.instance, triggerId) : undefined;
    return record ? operationResult(duplicateResult(instanceId, record)) : undefined;
  }

  private decideBulk(instanceId: string, request: BulkRequest, options: ChangeOptions, guard: InstancePrecondition): Promise<AppliedDecision> {
    switch (request.action) {
      case BulkAction.cancel:
        return this.runtime.cancel(instanceId, options, guard);
      case BulkAction.recover:
        return this.runtime.recover(instanceId, request.stateId!, options, guard);
      case BulkAction.suspend:
        return this.runtime.suspend(instanceId, options, guard);
      case BulkAction.resume:
        return this.runtime.resume(instanceId, options, guard);
      case BulkAction.delete:
        return this.runtime.delete(instanceId, request.force ?? false, options, guard);
      case BulkAction.reindex:
        return this.reindex(instanceId, options, guard);
      case BulkAction.retry:
        return this.runtime.retryFault(instanceId, options, guard);
    }
  }

  /** Writes the instance's search rows (no decision, no history entry): `reindexed`, or the guard's answer. */
  private async reindex(instanceId: string, options: ChangeOptions, guard: InstancePrecondition): Promise<AppliedDecision> {
    const stored = await this.ports.instances.get(instanceId, options);
    if (!stored || stored.deleting) return { outbox: [] };
    const refused = guard(stored);
    if (refused) return { decision: { result: refused, logs: [] }, instance: stored, outbox: [] };
    if (!(await this.runtime.reindex(instanceId, options))) return { outbox: [] };
    return { decision: { result: { instanceId, outcome: TriggerOutcome.transitioned, fromStateId: stored.stateId }, logs: [] }, outbox: [] };
  }

  /** The workflow's instances, narrowed by the store's columns (state, status), then by the rest of the selection. */
  private async queryInstances(selection: InstanceSelection, pageOptions: PageOptions, includeDeleting = false): Promise<Page<StoredInstance>> {
    const { workflowId, stateId, status } = selection;
    const page = await onePage(this.ports.instances.query({ workflowId, ...(stateId !== undefined ? { stateId } : {}), ...(status !== undefined ? { status } : {}) }, pageOptions));
    const items = page.items.filter((instance) => (includeDeleting || !instance.deleting) && matchesSelection(instance, selection));
    return page.continuationToken ? { items, continuationToken: page.continuationToken } : { items };
  }
}

function getOrAdd<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = create()));
  return value;
}

/** A report row's `automaticTransitions`, when the state has any (automatic transitions in workflow-model terms). */
function automaticOf(target: WorkflowDefinition, stateId: string): Pick<MigrationReportRow, 'automaticTransitions'> {
  const automatic = (target.states[stateId]?.transitions ?? []).filter(isAutomaticTransition);
  if (automatic.length === 0) return {};
  // In the order they are tried: the `otherwise` one last, wherever it is written.
  const ordered = [...automatic.filter((transition) => !transition.otherwise), ...automatic.filter((transition) => transition.otherwise)];
  return {
    automaticTransitions: ordered.map((transition) => ({ transitionId: transition.id, targetStateId: transition.targetStateId, ...(transition.otherwise ? { otherwise: true as const } : {}) })),
  };
}
