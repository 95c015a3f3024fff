/**
 * @module The changes an operator (or a bulk action) asks of one instance, each one decision through the
 * run loop (change-under-lease.ts): recover, cancel, migrate, suspend, resume; and a trigger's dry run,
 * the same decision with no lease and nothing saved. Recovery and migration into a state with `capacity`
 * are admitted there first (capacity-admission.ts).
 */
import type { WorkflowDefinition as TargetDefinition } from '../definition/definition';
import { unchanged } from '../decide/decision';
import { decideCancel } from '../decide/decide-cancel';
import { decideRecover, type RecoveryRepair } from '../decide/decide-recover';
import { decideMigrate, migrationVerdict } from '../decide/decide-migrate';
import { decideResume, decideSuspend } from '../decide/decide-suspend';
import type { MigrationRequest } from '../decide/operation-work';
import { dryRunTrigger, type DryRunResult } from '../decide/dry-run';
import type { ResolvedEngineOptions } from './engine-options';
import { ActionOutcome, InstanceStatus } from '../model/enums';
import { CapacityFullError } from '../model/errors';
import { applyMergePatch } from '../model/merge-patch';
import type { OperationOptions } from '../ports/ports';
import type { Trigger } from '../model/trigger';
import type { WorkflowVersionCache } from './workflow-version-cache';
import { CapacityForecast } from '../admission/capacity-forecast';
import type { AppliedDecision, CapacityPlaces, ChangeOptions, InstancePrecondition, InstanceRuntimePorts } from './change-types';
import { guarded, withCapacityCounted } from './change-decoration';
import type { ChangeFollowUp } from './change-follow-up';
import type { ChangeUnderLease } from './change-under-lease';

export class OperatorChanges {
  constructor(
    private readonly ports: Pick<InstanceRuntimePorts, 'instances'>,
    private readonly versions: WorkflowVersionCache,
    private readonly options: ResolvedEngineOptions,
    private readonly followUp: Pick<ChangeFollowUp, 'effects'>,
    private readonly loop: Pick<ChangeUnderLease, 'decideUnderLease'>,
    private readonly admission: CapacityPlaces,
  ) {}

  /**
   * What `trigger` would do to the instance: the same decision as applyTrigger, on the instance as it is
   * now, with no lease and nothing saved or relayed (dry-run.ts). Undefined when the instance does not exist.
   */
  async dryRun(instanceId: string, trigger: Trigger, options: OperationOptions = {}): Promise<DryRunResult | undefined> {
    const stored = await this.ports.instances.get(instanceId, options);
    if (!stored || stored.deleting) return undefined;
    const { definition } = await this.versions.get(stored.workflowId, stored.workflowVersion, options);
    return dryRunTrigger(definition, stored, trigger, this.followUp.effects(`${instanceId}|dry-run`, options.abortSignal), this.options.registry);
  }

  async recover(instanceId: string, stateId: string, options: ChangeOptions = {}, guard?: InstancePrecondition, repair?: RecoveryRepair): Promise<AppliedDecision> {
    // Into a full state with `capacity`: refused (CapacityFullError), nothing saved; admitted, counted there.
    const protocol = this.admission.admissionOf(options);
    const gate = protocol.gate;
    const decided = await this.loop.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'recover', sequence: stored.historyLength }),
      async (stored, { definition, effects }) => {
        const refused = guarded(stored, guard);
        if (refused) return refused;
        // Only once decideRecover would take it (faulted, a known state): its own refusals come first.
        if (stored.status === InstanceStatus.faulted && Object.hasOwn(definition.states, stateId)) {
          const context = repair?.contextPatch ? applyMergePatch(stored.context, repair.contextPatch) : stored.context;
          const full = await gate.admitNow(definition, { ...stored, context }, stateId);
          if (full) throw new CapacityFullError(full.refused, full.stateId, full.key);
        }
        return withCapacityCounted(gate, await protocol.decide(() => decideRecover(definition, stored, stateId, gate.withAutomaticEntry(effects, definition, stored), this.options.registry, repair)));
      },
      options,
    );
    return this.admission.giveBackUnusedPlace(protocol, decided.instance?.workflowId, instanceId, decided);
  }

  cancel(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.loop.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'cancel', sequence: stored.historyLength }),
      async (stored) => guarded(stored, guard) ?? decideCancel(stored, this.options.clock.now()),
      options,
    );
  }

  /** A forecast of the refusals of full states (`capacity`) for a migration's dry run; undefined without a flow store. */
  capacityForecast(options: OperationOptions = {}): CapacityForecast | undefined {
    return this.admission.capacity ? new CapacityForecast(this.admission.capacity, () => this.options.clock.now(), options) : undefined;
  }

  /** Moves the instance to `request.toVersion` (`target` is that version's definition): a relabel, no actions run. */
  async migrate(instanceId: string, request: MigrationRequest, target: TargetDefinition, options: ChangeOptions = {}): Promise<AppliedDecision> {
    // Into a full state with `capacity`: this instance stays where it is (`notMigratable`, saying why); the operation goes on.
    const protocol = this.admission.admissionOf(options);
    const gate = protocol.gate;
    const decided = await this.loop.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'migrate', sequence: stored.historyLength }),
      async (stored, { effects }) => {
        const verdict = migrationVerdict(request, target, stored);
        const full = verdict.move ? await gate.admitNow(target, stored, verdict.toStateId) : undefined;
        if (full) return unchanged({ instanceId: stored.id, outcome: ActionOutcome.notMigratable, fromStateId: stored.stateId, error: full.refused });
        return withCapacityCounted(gate, await protocol.decide(() => decideMigrate(request, target, stored, gate.withAutomaticEntry(effects, target, stored), this.options.registry)));
      },
      options,
    );
    return this.admission.giveBackUnusedPlace(protocol, target.id, instanceId, decided);
  }

  /** `guard` (optional) may answer instead of deciding, e.g. `skipped` for an instance a bulk filter no longer matches. */
  suspend(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.loop.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'suspend', sequence: stored.historyLength }),
      async (stored) => guarded(stored, guard) ?? decideSuspend(stored, this.options.clock.now()),
      options,
    );
  }

  resume(instanceId: string, options?: ChangeOptions, guard?: InstancePrecondition): Promise<AppliedDecision> {
    return this.loop.decideUnderLease(
      instanceId,
      (stored) => ({ kind: 'resume', sequence: stored.historyLength }),
      async (stored) => guarded(stored, guard) ?? decideResume(stored, this.options.clock.now()),
      options,
    );
  }
}
