/**
 * @module zod schemas of what the API answers (representations.ts builds the bodies), its headers and
 * its problems. Route contracts use them, and the OpenAPI document and the typed client come from them;
 * a test checks real answers against the document, so the bodies cannot drift from these.
 */
import { z } from 'zod';
import { DeliveryStatus } from '../../engine/decide';
import { lifecycleEventTypeSchema } from '../../engine/definition';
import { instanceStatusSchema, operationOutcomeValues, OperationStatus } from '../../engine/model';
import { OperationEnding } from '../../engine/operations';
import { HistoryEvent } from '../../engine/model';
import { WarningCode } from '../../engine/analysis';
import { STORAGE_REQUEST_KINDS } from '../../engine/operations';
import { jsonObjectSchema, StepErrorType } from '../../engine/model';
import type { SchemaReference } from './types';

/** The workflow definition's JSON Schema (per registry), a component of the document. */
export const workflowDefinitionReference: SchemaReference = { $ref: '#/components/schemas/WorkflowDefinition' };
/** A stored version: the definition plus `version` and `etag`. */
export const workflowReference: SchemaReference = { $ref: '#/components/schemas/Workflow' };

export const problemSchema = z
  .object({
    type: z.string().meta({ description: 'A URI naming the kind of problem.' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string().meta({ description: 'JSON path of the field, `$` for the whole body.' }), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details; `errors` lists every invalid field.' });

const timestamp = z.string().meta({ description: 'ISO 8601, UTC.', format: 'date-time' });
const nullableId = z.string().nullable();

export const stepErrorShape = z.object({
  type: z.enum(Object.values(StepErrorType) as [StepErrorType, ...StepErrorType[]]),
  message: z.string(),
  status: z.number().int().optional().meta({ description: 'The HTTP status, when the service answered one.' }),
});

const costCount = z.number().int().nonnegative();
export const operationCostSchema = z
  .object({
    storage: z.object(Object.fromEntries(STORAGE_REQUEST_KINDS.map((kind) => [kind, costCount])) as Record<(typeof STORAGE_REQUEST_KINDS)[number], typeof costCount>),
    outbound: z.object({ calls: costCount, bytesSent: costCount, bytesReceived: costCount }),
    activities: costCount,
  })
  .meta({ id: 'OperationCost', description: 'Counted requests (decision 0021): storage requests by billed kind, outbound HTTP attempts and body bytes, durable activities started.' });

export const costEstimateSchema = z
  .object({
    currency: z.string(),
    total: z.number(),
    storage: z.number(),
    outbound: z.number(),
    activities: z.number(),
    storageRequests: costCount,
  })
  .meta({ id: 'CostEstimate', description: 'The counts priced by the price table (an estimate: docs/guides/cost.md says what it leaves out).' });

export const instanceSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    workflowVersion: z.number().int().min(1),
    stateId: z.string(),
    status: instanceStatusSchema,
    context: jsonObjectSchema,
    interests: z.array(z.string()).meta({ description: "Subjects the instance is offered triggers for: its own id, its state's interests, and the trigger names its transitions answer." }),
    timers: z
      .array(z.object({ transitionId: z.string(), dueAt: timestamp }))
      .meta({ description: 'Timers armed on entering the current state, not yet fired or spent: each fires its timer transition at `dueAt`. Leaving the state disarms them.' }),
    fault: z
      .object({
        message: z.string(),
        triggerId: nullableId,
        at: timestamp,
        retryable: z
          .boolean()
          .optional()
          .meta({ description: 'True when `POST /api/instances/{id}/retry` can apply the trigger that faulted it again (`triggerId`), exactly once; absent otherwise (recover it instead).' }),
      })
      .optional(),
    pendingRetry: z
      .object({
        triggerId: z.string(),
        triggerName: z.string(),
        attempt: z.number().int().min(2),
        nextAttemptAt: timestamp,
        stepPath: z.string(),
        lastError: stepErrorShape,
      })
      .optional()
      .meta({ description: "A trigger waiting for another attempt of a step's retry policy: a timer applies it again at `nextAttemptAt` (absent when none)." }),
    parent: z.object({ instanceId: z.string() }).optional().meta({ description: 'Set on a child instance (started by a `startInstance` action): its parent hears when it ends.' }),
    businessKey: z.string().optional().meta({ description: 'The key from the business given at creation (searchable as `businessKey`).' }),
    indexProblems: z.record(z.string(), z.string()).optional().meta({ description: 'Search fields left without a value for this instance, and why (an expression failed or yielded the wrong type).' }),
    cost: operationCostSchema.optional().meta({
      description:
        'Running totals of what its applications cost (decision 0021): each save adds what the application sent up to it and the save itself (the lease release and what follows are on the operation).',
    }),
    createdAt: timestamp,
    updatedAt: timestamp,
    etag: z.string(),
  })
  .meta({ id: 'Instance' });

export const lifecycleEventSchema = z
  .object({
    id: z.string().meta({ description: 'The CloudEvent `id`: `<instanceId>:<history sequence>:<type>`, the same on every redelivery.' }),
    type: lifecycleEventTypeSchema,
    time: timestamp,
    deliveries: z.array(
      z.object({
        subscriptionId: z.string(),
        status: z.enum(Object.values(DeliveryStatus) as [DeliveryStatus, ...DeliveryStatus[]]),
        attempts: z.number().int().min(0),
        lastError: z.string().optional(),
        nextAttemptAt: timestamp.optional().meta({ description: 'Only while a failed delivery waits for its retry: when the next attempt is due.' }),
      }),
    ),
  })
  .meta({ id: 'LifecycleEvent' });

const identityShape = {
  id: z.string().meta({ description: "The token's `oid` (else `sub`); `api-key`, `function-key` or `anonymous` for keys; `system` for follow-up work." }),
  name: z.string(),
  tenantId: z.string().optional().meta({ description: "The token's `tid`." }),
  roles: z.array(z.string()),
  groups: z.array(z.string()).optional(),
  via: z.enum(['token', 'key', 'system']),
  onBehalfOf: z.object({ id: z.string(), name: z.string().optional() }).optional().meta({ description: 'The user a caller with Signalbox.Impersonate acted for (`on-behalf-of`).' }),
};
export const actorSchema = z
  .object({
    ...identityShape,
    cause: z.object(identityShape).optional().meta({ description: 'For `system`: the actor of the change that caused this work (a person, a key).' }),
  })
  .meta({ id: 'Actor', description: 'Who made a change: set by the server from the credential, never by a client.' });

export const historyEntrySchema = z
  .object({
    at: timestamp,
    event: z.enum(Object.values(HistoryEvent) as [HistoryEvent, ...HistoryEvent[]]),
    fromVersion: z.number().int().optional().meta({ description: 'Only for `migrated`.' }),
    toVersion: z.number().int().optional().meta({ description: 'Only for `migrated`.' }),
    triggerId: nullableId,
    operationId: nullableId.meta({
      description:
        "The operation that made the change (GET /api/operations/{operationId}): the trigger's, a migration or a bulk action; null for changes made directly (creation, recovery, cancel, ...).",
    }),
    transitionId: nullableId,
    fromStateId: nullableId,
    toStateId: z.string(),
    status: instanceStatusSchema,
    contextPatch: jsonObjectSchema.optional().meta({ description: 'Only for a recovery that repaired the context: the JSON Merge Patch applied before the state was entered.' }),
    by: z.string().optional().meta({ description: "Who asked for a recovery: the actor's id (kept for clients written before `actor`)." }),
    actor: actorSchema.optional().meta({ description: 'Who made the change; absent on entries written before actors.' }),
    retriedBy: actorSchema.optional().meta({ description: "Only for a change a retry of a fault made (POST /api/instances/{id}/retry): who asked for the retry; `actor` stays the trigger's sender." }),
    error: stepErrorShape.extend({ stepPath: z.string() }).optional().meta({ description: 'Only for `errorHandled`: the step that failed and how; an `onError` took the instance to `toStateId`.' }),
  })
  .meta({ id: 'HistoryEntry' });

export const workflowSummarySchema = z.object({ id: z.string(), displayName: z.string(), version: z.number().int().min(1) }).meta({ id: 'WorkflowSummary' });

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

/** `{ items, continuationToken? }`: a page of a list. */
export function pageSchemaOf(item: z.ZodType, id: string) {
  return z
    .object({
      items: z.array(item),
      continuationToken: z.string().optional().meta({ description: 'Present when there may be more: pass it back as `continuationToken`.' }),
    })
    .meta({ id });
}

const headerText = (description: string) => z.string().meta({ description });
export const etagHeaders = z.object({ ETag: headerText('The version, for If-Match and If-None-Match.') });
export const createdHeaders = z.object({ ETag: etagHeaders.shape.ETag, Location: headerText('The URL of what was created.') });
export const retryAfterHeaders = z.object({ 'Retry-After': headerText('Seconds to wait before asking again.') });
const preferenceApplied = z.string().optional().meta({ description: 'RFC 7240: `wait=<seconds>`, the wait honoured; present only when the request asked to wait (`Prefer: wait`).' });
export const acceptedHeaders = z.object({
  Location: headerText('The operation to poll.'),
  'Operation-Location': headerText('The operation to poll (the same URL).'),
  'Retry-After': retryAfterHeaders.shape['Retry-After'],
  'Preference-Applied': preferenceApplied,
});
export const pendingOperationHeaders = z.object({ 'Retry-After': retryAfterHeaders.shape['Retry-After'], 'Preference-Applied': preferenceApplied });
export const finishedOperationHeaders = z.object({ 'Preference-Applied': preferenceApplied });
export const ifNoneMatchHeaders = z.object({ 'If-None-Match': z.string().optional().meta({ description: 'An ETag seen before: 304 with no body while it is current.' }) });

// ---- explain: analysis, available triggers ------------------------------------------------------

/** A stored version as PUT and POST answer it: the Workflow plus the analysis' `warnings`. */
export const storedWorkflowReference: SchemaReference = { $ref: '#/components/schemas/StoredWorkflow' };

export const definitionWarningSchema = z
  .object({
    path: z.string().meta({ description: 'JSON path in the definition.' }),
    code: z.enum(Object.values(WarningCode) as [WarningCode, ...WarningCode[]]),
    message: z.string(),
  })
  .meta({ id: 'DefinitionWarning', description: 'Allowed, but probably a mistake; never blocks storing a definition.' });

export const definitionCheckSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).meta({ description: 'Why the definition would be refused; empty when valid.' }),
    warnings: z.array(definitionWarningSchema).meta({ description: 'Only for a valid definition.' }),
  })
  .meta({ id: 'DefinitionCheck' });

const parameterTestSchema = z.object({
  name: z.string(),
  test: z.enum(['equals', 'notEquals', 'exists', 'notExists']),
  value: z.unknown().optional(),
  negated: z.literal(true).optional().meta({ description: 'Under an odd number of `not`s: the trigger must make this test false.' }),
  alternative: z.literal(true).optional().meta({ description: 'One alternative among others (inside an `any`).' }),
});

export const availableTriggersSchema = z
  .object({
    status: instanceStatusSchema,
    stateId: z.string(),
    actor: z.string().optional().meta({ description: 'Whose triggers these are: the caller, or `?actor=`.' }),
    refused: z
      .array(z.object({ transitionId: z.string(), reason: z.string() }))
      .optional()
      .meta({ description: 'Transitions of the state whose `actors` rule refuses this actor, with why.' }),
    items: z.array(
      z.object({
        transitionId: z.string(),
        triggerNames: z.array(z.string()).meta({ description: 'The names it answers; `["*"]` for any name; empty for a timer transition.' }),
        exceptTriggerNames: z.array(z.string()).optional().meta({ description: 'With `["*"]`: the names it never answers.' }),
        parameters: z.array(parameterTestSchema).meta({ description: 'What its `triggerParameter` conditions test.' }),
        targetStateId: z.string(),
        timer: z.object({ after: z.string().optional(), at: z.string().optional(), calendar: z.string().optional(), dueAt: z.string().optional() }).optional(),
      }),
    ),
  })
  .meta({ id: 'AvailableTriggers', description: 'Empty `items` unless the instance is `waiting`.' });
