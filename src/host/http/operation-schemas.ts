/**
 * @module zod schemas of the API's operations (api-schemas.ts gathers them): an operation and its
 * instance results, offers, bulk dry runs, migration reports, trigger dry runs and accepted answers.
 */
import { z } from 'zod';
import { lifecycleEventTypeSchema } from '../../engine/definition';
import { instanceStatusSchema, operationOutcomeValues, OperationStatus } from '../../engine/model';
import { OperationEnding } from '../../engine/operations';
import { jsonObjectSchema } from '../../engine/model';
import { actorSchema, operationCostSchema, timestamp } from './resource-schemas';

const outcomeSchema = z.enum(operationOutcomeValues);
const migrationFilterSchema = z.object({ stateId: z.string().optional(), status: instanceStatusSchema.optional() });

export const traceEntrySchema = z
  .object({
    path: z.string().meta({ description: "The condition's JSON path in the definition, e.g. `states.draft.transitions[1].conditions[0]`." }),
    type: z.string().meta({ description: "The condition type; for a step's retry in place the step's type, for a pending retry `retry`, for a handled error `onError`." }),
    result: z.union([z.boolean(), z.enum(['error', 'skipped'])]).meta({ description: '`skipped`: not evaluated, an earlier condition decided (short-circuit).' }),
    detail: z.string().optional().meta({ description: "A short explanation: the expression's value, the external service's answer, the error." }),
  })
  .meta({ id: 'TraceEntry' });
const traceSchema = z.array(traceEntrySchema).meta({ description: 'The conditions evaluated, in order; absent when none were (duplicate, notActive, notInterested).' });

const instanceResultShape = {
  instanceId: z.string(),
  outcome: outcomeSchema,
  transitionId: z.string().optional(),
  fromStateId: z.string().optional(),
  toStateId: z.string().optional(),
  error: z.string().optional().meta({ description: 'For `faulted`, `notMigratable`, `conflict`, `skipped` and `failed`: why.' }),
  trace: traceSchema.optional(),
};

export const operationSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['trigger', 'migration', 'bulk']).meta({ description: 'What the operation does: dispatch a trigger, migrate instances, or a bulk action.' }),
    triggerId: z.string().optional().meta({ description: 'Only for `trigger`.' }),
    trigger: z
      .object({ name: z.string(), subjects: z.array(z.string()), parameters: jsonObjectSchema.optional(), contentType: z.string().optional(), priority: z.number().int().optional() })
      .optional()
      .meta({ description: 'Only for `trigger`: what was sent (its name, subjects and parameters).' }),
    migration: z
      .object({ workflowId: z.string(), fromVersion: z.number().int(), toVersion: z.number().int(), stateMap: z.record(z.string(), z.string()), filter: migrationFilterSchema.optional() })
      .optional()
      .meta({ description: 'Only for `migration`: what it migrates.' }),
    bulk: z
      .object({
        action: z.enum(['cancel', 'recover', 'suspend', 'resume', 'delete']),
        filter: z.object({ workflowId: z.string(), stateId: z.string().optional(), status: instanceStatusSchema.optional(), subject: z.string().optional(), updatedBefore: z.string().optional() }),
        stateId: z.string().optional(),
        force: z.boolean().optional(),
      })
      .optional()
      .meta({ description: 'Only for `bulk`: the action and its filter.' }),
    actor: actorSchema.optional().meta({ description: 'Who sent the trigger or asked for the migration or bulk action.' }),
    priority: z.number().int().optional().meta({ description: "Only for `trigger`: the trigger's priority (1-5, 3 when it named none), where triggers wait to run." }),
    status: z.enum(Object.values(OperationStatus) as [OperationStatus, ...OperationStatus[]]),
    outcome: z
      .enum(Object.values(OperationEnding) as [OperationEnding, ...OperationEnding[]])
      .optional()
      .meta({
        description:
          'Once finished, how it went for the instances: `succeeded` (none faulted), `completedWithFaults` (offered to every candidate, and `faulted` of them faulted: retry them with POST /api/operations/{operationId}/retry-faulted), `failed` (the dispatch could not finish). `status: succeeded` alone says only that the dispatch finished.',
      }),
    faulted: z.number().int().optional().meta({ description: "Instances it faulted (a migration's or bulk action's `failed` too): 0 when none (absent from servers before it)." }),
    createdAt: timestamp,
    updatedAt: timestamp,
    candidates: z.number().int().meta({ description: 'Instances the operation was applied to.' }),
    summary: z.partialRecord(outcomeSchema, z.number().int()).meta({ description: 'How many instances had each outcome (every outcome of the kind, 0 included); counts all of them.' }),
    instances: z.array(z.object(instanceResultShape)).meta({ description: 'The first 1,000 per-instance results; `summary` counts all.' }),
    instancesTruncated: z.boolean().optional().meta({ description: 'True when `instances` does not hold every result; `summary` counts them all.' }),
    tracesTruncated: z.boolean().optional().meta({ description: 'True when some results carry no `trace`: only the first 100 results keep theirs (and at most 160,000 characters of traces).' }),
    progress: z
      .object({ total: z.number().int().optional().meta({ description: 'Once every candidate is known.' }), processed: z.number().int() })
      .optional()
      .meta({ description: 'Only while `running`: for a progress bar.' }),
    error: z.string().optional().meta({ description: 'Only when `status` is `failed`: why the dispatch could not finish.' }),
    cost: operationCostSchema
      .optional()
      .meta({ description: 'Once finished: the requests its run sent, up to and including the write of its record (decision 0021); absent on operations recorded before costs were counted.' }),
    costByWorkflow: z
      .record(z.string(), operationCostSchema)
      .optional()
      .meta({ description: "`cost` by the workflow of the instances it reached (the rest shared among them; `''`: none reached). While running: what the counted applications cost so far." }),
  })
  .meta({ id: 'Operation' });

export const offerListSchema = z
  .object({
    items: z.array(
      z.object({
        operationId: z.string().meta({ description: "The trigger's operation (its id)." }),
        triggerName: z.string(),
        at: timestamp,
        outcome: z.enum(['noTransition', 'exitBlocked', 'entryBlocked', 'notActive', 'notInterested', 'capacityQueued', 'capacityTimeout']),
        fromStateId: z.string().optional(),
        transitionId: z.string().optional(),
        toStateId: z.string().optional(),
        trace: traceSchema.optional(),
      }),
    ),
  })
  .meta({ id: 'OfferList', description: 'Triggers offered to an instance that changed nothing, newest first (at most 20).' });

export const listedOperationSchema = operationSchema
  .omit({ instances: true, progress: true, instancesTruncated: true, tracesTruncated: true, cost: true, costByWorkflow: true })
  .meta({ id: 'ListedOperation', description: 'An operation as listed: what it was and how it ended, without its per-instance results (GET the operation for those and for `progress`).' });
export const bulkDryRunSchema = z
  .object({
    action: z.string(),
    filter: z.object({ workflowId: z.string(), stateId: z.string().optional(), status: z.string().optional(), subject: z.string().optional(), updatedBefore: z.string().optional() }),
    matched: z.number().int().meta({ description: 'How many instances the filter matches now: the `expectedCount` a bulk delete names.' }),
  })
  .meta({ id: 'BulkDryRun' });

const reportSample = z.array(z.string()).meta({ description: 'A few of the instance ids.' });
export const migrationReportSchema = z
  .object({
    fromVersion: z.number().int(),
    toVersion: z.number().int(),
    rows: z
      .array(
        z.object({
          fromStateId: z.string(),
          toStateId: z.string(),
          count: z.number().int(),
          sample: reportSample,
          automaticTransitions: z
            .array(z.object({ transitionId: z.string(), targetStateId: z.string(), otherwise: z.literal(true).optional() }))
            .optional()
            .meta({ description: 'The automatic transitions of the target state, in the order they are tried: a waiting instance takes the first that holds in the migration (not evaluated here).' }),
        }),
      )
      .meta({ description: 'Instances that would move, per source and target state.' }),
    blocked: z
      .array(z.object({ fromStateId: z.string(), reason: z.string(), count: z.number().int(), sample: reportSample }))
      .meta({ description: 'Instances that cannot move, per source state and reason.' }),
  })
  .meta({ id: 'MigrationReport' });

const triggerToRaiseSchema = z.object({
  name: z.string(),
  subjects: z.array(z.string()),
  contentType: z.string().optional(),
  parameters: jsonObjectSchema.optional(),
});

export const dryRunSchema = z
  .object({
    instances: z.array(
      z.object({
        ...instanceResultShape,
        contextAfter: jsonObjectSchema.meta({ description: 'The context the instance would have afterwards (as it is, when nothing would change).' }),
        events: z
          .array(
            z.object({
              type: lifecycleEventTypeSchema,
              subscriptionIds: z.array(z.string()).meta({ description: 'The subscriptions it would be delivered to.' }),
              data: z.record(z.string(), z.unknown()).meta({ description: 'The CloudEvent `data` it would carry.' }),
            }),
          )
          .meta({ description: 'Lifecycle events it would publish (those a subscription of the workflow wants); none is recorded or sent.' }),
        raisedTriggers: z.array(triggerToRaiseSchema).meta({ description: 'Triggers its actions would raise (not raised).' }),
        actions: z
          .array(
            z.object({
              step: z.string().meta({ description: 'Where the action is, as a fault would name it.' }),
              type: z.string(),
              request: z
                .object({ method: z.string(), url: z.string(), body: z.unknown().optional() })
                .optional()
                .meta({ description: '`invokeExternalService`: the request it would send (not sent).' }),
              log: z
                .object({ level: z.string(), message: z.string(), properties: z.record(z.string(), z.unknown()) })
                .optional()
                .meta({ description: '`log`: the line it would write.' }),
              trigger: triggerToRaiseSchema.optional().meta({ description: '`raiseTrigger`: the trigger it would raise.' }),
            }),
          )
          .meta({ description: 'The actions it would run, in order, with their rendered inputs; none is performed.' }),
      }),
    ),
    truncated: z.boolean().meta({ description: 'True when there were more than 100 candidates: only the first 100 were decided.' }),
  })
  .meta({ id: 'DryRun', description: 'What the trigger would do to each instance; nothing was saved, leased or dispatched.' });

export const dryRunQuerySchema = z.object({
  dryRun: z.enum(['true', 'false']).optional().meta({ description: '`true`: answer 200 with what the trigger would do, changing nothing.' }),
});

export const acceptedOperationSchema = z
  .object({ operationId: z.string(), status: operationSchema.shape.status, statusUrl: z.string().meta({ description: 'Where to poll: GET it until it answers 200.' }) })
  .meta({ id: 'AcceptedOperation' });

export const healthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
