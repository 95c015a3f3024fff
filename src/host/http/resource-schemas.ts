/**
 * @module zod schemas of the API's resources (api-schemas.ts gathers them): problems, instances, their
 * history and lifecycle events, actors, costs and workflow summaries. Operations (operation-schemas.ts)
 * are built from these.
 */
import { z } from 'zod';
import { DeliveryStatus } from '../../engine/decide';
import { lifecycleEventTypeSchema } from '../../engine/definition';
import { instanceStatusSchema } from '../../engine/model';
import { HistoryEvent } from '../../engine/model';
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

export const timestamp = z.string().meta({ description: 'ISO 8601, UTC.', format: 'date-time' });
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
