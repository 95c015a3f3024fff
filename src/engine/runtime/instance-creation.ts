/**
 * @module Creating an instance: no lease (the id is new), the same steps as the run loop's with a create
 * instead of a save: the decision (decide-create.ts), index rows first, then one create of the instance
 * with its history entry, outbox rows and event records; a state with `capacity` admits it first.
 */
import type { WorkflowVersion } from '../definition/definition';
import { causeKey, type Decision } from '../decide/decision';
import { creationCause, decideCreate, type NewInstance } from '../decide/decide-create';
import type { ResolvedEngineOptions } from './engine-options';
import { InstanceStatus } from '../model/enums';
import { CapacityFullError, ConflictError, TooLargeError, ValidationError } from '../model/errors';
import type { StoredInstance } from '../model/instance';
import { isStoredOutboxRow } from '../model/outbox';
import type { OperationOptions } from '../ports/ports';
import { newIncarnation } from '../model/trigger-ids';
import type { SearchIndexing } from '../search/search-indexing';
import type { AppliedDecision, CapacityPlaces, InstanceRuntimePorts } from './change-types';
import { historyOf, withActor, withCapacityCounted, withEvents } from './change-decoration';
import type { ChangeFollowUp } from './change-follow-up';
import type { IndexRows } from './index-rows';
import { withTask } from '../tasks';
import type { ChangeUnderLease } from './change-under-lease';
import { CallRecorder, withHistoryRecord } from './history-recording';
import type { InstanceDeletion } from './instance-deletion';

export class InstanceCreation {
  constructor(
    private readonly ports: Pick<InstanceRuntimePorts, 'instances' | 'interests'>,
    private readonly options: ResolvedEngineOptions,
    private readonly search: SearchIndexing,
    private readonly followUp: ChangeFollowUp,
    private readonly indexRows: IndexRows,
    private readonly loop: Pick<ChangeUnderLease, 'prepareLease' | 'taskRows'>,
    private readonly deletion: Pick<InstanceDeletion, 'delete'>,
    private readonly admission: CapacityPlaces,
  ) {}

  /**
   * Creates an instance of `workflow`: ConflictError for an id that exists. No lease: nothing else can
   * save an instance that does not exist yet, and the create itself refuses a second one. So not through
   * `decideUnderLease`, which leases, loads a stored instance and saves on its ETag: here there is none to
   * load, and the store's create (insert, 409 on an existing id) is the condition.
   */
  async create(workflow: WorkflowVersion, input: NewInstance, options: OperationOptions = {}): Promise<AppliedDecision & { instance: StoredInstance; decision: Decision }> {
    const existing = await this.ports.instances.get(input.instanceId, options);
    // One marked `deleting` is gone for every reader (a deletion stopped by a crash after its mark): the
    // deletion is finished first, its leftover rows relayed with the creation's, so the id is free as it reads.
    const leftovers = existing?.deleting ? (await this.deletion.delete(input.instanceId, true, options)).outbox : [];
    if (existing && !existing.deleting) throw new ConflictError(`Instance "${input.instanceId}" exists`);
    // Into a full state with `capacity`: refused before anything is written; admitted, counted there.
    const protocol = this.admission.admissionOf(options);
    const gate = protocol.gate;
    const initialStateId = workflow.definition.initialStateId;
    const full = await gate.admitNow(
      workflow.definition,
      { id: input.instanceId, workflowId: workflow.definition.id, status: InstanceStatus.initializing, context: input.context, historyLength: 0 },
      initialStateId,
    );
    if (full) throw new CapacityFullError(full.refused, full.stateId, full.key);
    const cause = creationCause(input);
    const deliveryKey = `${input.instanceId}|${causeKey(cause)}`;
    // A new incarnation: every id derived from this instance differs from those of any earlier one with its id.
    const incarnated: NewInstance = input.incarnation !== undefined ? input : { ...input, incarnation: newIncarnation() };
    // A creation's record holds its whole context, as a change from the empty one (a rebuild starts there).
    const calls = new CallRecorder();
    const decision = withCapacityCounted(
      gate,
      withEvents(
        workflow.definition,
        undefined,
        cause,
        await withTask(
          workflow.definition,
          withActor(
            withHistoryRecord(
              await protocol.decide(() =>
                decideCreate(
                  workflow,
                  incarnated,
                  gate.withAutomaticEntry(calls.effects(this.followUp.effects(deliveryKey, options.abortSignal)), workflow.definition, {
                    id: input.instanceId,
                    workflowId: workflow.definition.id,
                    ...(incarnated.incarnation !== undefined ? { incarnation: incarnated.incarnation } : {}),
                    historyLength: 0,
                  }),
                  this.options.registry,
                ),
              ),
              workflow.definition,
              cause,
              {},
              calls.calls,
            ),
            cause,
          ),
          () => this.options.clock.now(),
        ),
      ),
    );
    const change = decision.change!;
    // The lease blob now, beside the index rows, rather than on the first trigger's path (a failed
    // acquire, a create, a second acquire). Only an optimisation: withLease creates a missing one itself.
    const preparing = this.loop.prepareLease(input.instanceId, options);
    // Index rows first: the indexes may hold more than the truth, never less.
    let stored: StoredInstance;
    let creating = change.instance;
    try {
      await this.ports.interests.add(input.instanceId, change.instance.interests, options);
      await this.indexRows.indexTimers(undefined, change.instance, options);
      await this.loop.taskRows.beforeSave(undefined, change.instance, options);
      creating = await this.search.beforeSave(undefined, change.instance, options);
      stored = await this.ports.instances.create(
        creating,
        {
          history: historyOf(change),
          outbox: change.outbox.filter(isStoredOutboxRow),
          ...(change.events ? { events: change.events } : {}),
          ...(input.claimTokens?.length ? { fences: input.claimTokens } : {}),
        },
        options,
      );
    } catch (error) {
      // Refused outright (too large, invalid): nothing was created, so its index rows must not stay. After a
      // conflict or a storage fault they stay: another writer's instance may own them, or the create may
      // have happened after all (the index is a superset of the truth).
      if (error instanceof TooLargeError || error instanceof ValidationError) {
        await this.indexRows.removeInterests(input.instanceId, change.instance.interests, options);
        await this.search.undoCreate(creating, options);
      }
      // The instance as stored decides (a create whose answer was lost may have happened): its place confirmed,
      // or given back. No waiter is offered here: the creation failed, and the next change of the key offers them.
      await this.admission.giveBackUnusedPlace(protocol, workflow.definition.id, input.instanceId, { outbox: [] }, true);
      throw error;
    } finally {
      await preparing;
    }
    this.followUp.finish(deliveryKey, decision.logs, stored);
    return this.admission.giveBackUnusedPlace(protocol, workflow.definition.id, input.instanceId, { decision, instance: stored, outbox: [...leftovers, ...change.outbox] });
  }
}
