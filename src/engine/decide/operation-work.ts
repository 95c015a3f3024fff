/**
 * @module What an operation that is not a trigger does: a migration between versions or a bulk action,
 * over the instances a selection matches. The requests are validated here (zod, every field named);
 * the selection is re-checked for each instance under its lease (`matchesSelection`), since an instance
 * may change between the page that listed it and its turn.
 */
import type { Actor } from '../model/actor';
import { z } from 'zod';
import { stateIdSchema, workflowIdSchema } from '../definition/definition';
import { ActionOutcome, InstanceStatus, TriggerOutcome, instanceStatusSchema, type OperationOutcome } from '../model/enums';
import type { Instance } from '../model/instance';

const versionSchema = z.number().int().min(1);

/** Which instances an operation covers (all of one workflow, narrowed by the optional fields). */
export interface InstanceSelection {
  readonly workflowId: string;
  readonly workflowVersion?: number;
  readonly stateId?: string;
  readonly status?: InstanceStatus;
  /** Only instances interested in this subject (looked up in the interest index). */
  readonly subject?: string;
  /** Only instances last changed before this moment (ISO 8601): the retention purge. */
  readonly updatedBefore?: string;
  /** Only instances whose fault came from this trigger (a trigger's operation has its id): a bulk `retry` of one operation's faults. */
  readonly faultTriggerId?: string;
}

export const migrationRequestSchema = z.strictObject({
  fromVersion: versionSchema,
  toVersion: versionSchema,
  stateMap: z.record(stateIdSchema, stateIdSchema).default({}).meta({ description: 'Source state → target state. A state not listed keeps its id when the target version has it.' }),
  filter: z.strictObject({ stateId: stateIdSchema.optional(), status: instanceStatusSchema.optional() }).optional(),
  dryRun: z.boolean().default(false).meta({ description: 'Report what would move, change nothing (200).' }),
});
export type MigrationRequestInput = z.input<typeof migrationRequestSchema>;

/** A migration as an operation records it. */
export interface MigrationRequest {
  readonly workflowId: string;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly stateMap: Readonly<Record<string, string>>;
  readonly filter?: { readonly stateId?: string; readonly status?: InstanceStatus };
  /** Who asked for it (set by the host; the request schema is strict, so a client cannot). */
  readonly actor?: Actor;
  /**
   * The operation applying it to an instance (set by the engine for that application, never stored with
   * the request): recorded on the migrated instance (Instance.migratedBy). Absent in a dry run.
   */
  readonly operationId?: string;
}

export const BulkAction = {
  cancel: 'cancel',
  recover: 'recover',
  suspend: 'suspend',
  resume: 'resume',
  delete: 'delete',
  /** Writes the search rows of instances not indexed yet (or of versions that declared no indexes), changing nothing else. */
  reindex: 'reindex',
  /** Applies again, exactly once, the trigger that faulted each instance (decide-fault-retry.ts): faulted instances only. */
  retry: 'retry',
} as const;
export type BulkAction = (typeof BulkAction)[keyof typeof BulkAction];

export const bulkRequestSchema = z
  .strictObject({
    action: z.enum(Object.values(BulkAction) as [BulkAction, ...BulkAction[]]),
    filter: z.strictObject({
      workflowId: workflowIdSchema,
      stateId: stateIdSchema.optional(),
      status: instanceStatusSchema.optional(),
      subject: z.string().min(1).max(1024).optional(),
      updatedBefore: z.iso.datetime({ offset: true }).optional().meta({ description: 'Only instances last changed before this moment (ISO 8601).' }),
      workflowVersion: z.number().int().min(1).optional().meta({ description: 'Only instances of this version (e.g. a `reindex` of a version).' }),
      faultTriggerId: z
        .string()
        .min(1)
        .max(128)
        .optional()
        .meta({ description: "Only instances whose fault came from this trigger (a trigger's operation id is its trigger's id): e.g. a `retry` of what one operation faulted." }),
    }),
    stateId: stateIdSchema.optional().meta({ description: 'For `recover`: the state whose entry runs again.' }),
    force: z.boolean().default(false).meta({ description: 'For `delete`: delete waiting and initializing instances too.' }),
    dryRun: z.boolean().default(false).meta({ description: '`true`: answer 200 with how many instances the filter matches now; nothing changes.' }),
    expectedCount: z.number().int().min(0).optional().meta({
      description:
        'Required to `delete`: how many instances the filter matches (a dry run tells). The request is refused (409) when the filter matches another number, so a filter wider than meant deletes nothing.',
    }),
  })
  .superRefine((request, context) => {
    if (request.action === BulkAction.delete && !request.dryRun && request.expectedCount === undefined) {
      context.addIssue({ code: 'custom', path: ['expectedCount'], message: 'is required to delete: the number of instances the filter matches, which a request with dryRun: true answers' });
    }
    if (request.action === BulkAction.recover && request.stateId === undefined) {
      context.addIssue({ code: 'custom', path: ['stateId'], message: 'is required to recover (the state to recover to)' });
    }
    if (request.action !== BulkAction.recover && request.stateId !== undefined) {
      context.addIssue({ code: 'custom', path: ['stateId'], message: 'is only for `recover`' });
    }
    if (request.action === BulkAction.retry && request.filter.status !== undefined && request.filter.status !== InstanceStatus.faulted) {
      context.addIssue({ code: 'custom', path: ['filter', 'status'], message: 'must be `faulted` (or left out) to retry: only faulted instances can be retried' });
    }
  });
export type BulkRequestInput = z.input<typeof bulkRequestSchema>;

export interface BulkRequest {
  readonly action: BulkAction;
  readonly filter: InstanceSelection;
  readonly stateId?: string;
  readonly force?: boolean;
  /** Who asked for it (set by the host; the request schema is strict, so a client cannot). */
  readonly actor?: Actor;
}

export function migrationSelection(request: MigrationRequest): InstanceSelection {
  return { workflowId: request.workflowId, workflowVersion: request.fromVersion, ...request.filter };
}

/** Whether the instance (as read now) is still one the selection covers. `subject` is checked against its interests. */
export function matchesSelection(instance: Instance, selection: InstanceSelection): boolean {
  return (
    instance.workflowId === selection.workflowId &&
    (selection.workflowVersion === undefined || instance.workflowVersion === selection.workflowVersion) &&
    (selection.stateId === undefined || instance.stateId === selection.stateId) &&
    (selection.status === undefined || instance.status === selection.status) &&
    (selection.subject === undefined || instance.interests.includes(selection.subject)) &&
    (selection.updatedBefore === undefined || Date.parse(instance.updatedAt) < Date.parse(selection.updatedBefore)) &&
    (selection.faultTriggerId === undefined || (instance.status === InstanceStatus.faulted && instance.fault?.triggerId === selection.faultTriggerId))
  );
}

const doneOutcome: Record<BulkAction, OperationOutcome> = {
  cancel: ActionOutcome.cancelled,
  recover: ActionOutcome.recovered,
  suspend: ActionOutcome.suspended,
  resume: ActionOutcome.resumed,
  delete: ActionOutcome.deleted,
  reindex: ActionOutcome.reindexed,
  // A retry reports what its trigger did (transitioned, faulted again, ...), as a trigger's operation does.
  retry: TriggerOutcome.transitioned,
};

/** The outcome a bulk action reports for an instance it changed. */
export function bulkDoneOutcome(action: BulkAction): OperationOutcome {
  return doneOutcome[action];
}
