/**
 * @module zod schemas of what the API answers (representations.ts builds the bodies), its headers and
 * its problems. Route contracts use them, and the OpenAPI document and the typed client come from them;
 * a test checks real answers against the document, so the bodies cannot drift from these.
 */
import { z } from 'zod';
import { instanceStatusSchema, OperationStatus, triggerOutcomeValues } from '../../engine/enums';
import { HistoryEvent } from '../../engine/instance';
import { jsonObjectSchema } from '../../engine/json';
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

export const instanceSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    workflowVersion: z.number().int().min(1),
    stateId: z.string(),
    status: instanceStatusSchema,
    context: jsonObjectSchema,
    interests: z.array(z.string()).meta({ description: 'Subjects the instance is offered triggers for: its own id, its state\'s interests, and the trigger names its transitions answer.' }),
    timers: z
      .array(z.object({ transitionId: z.string(), dueAt: timestamp }))
      .meta({ description: 'Timers armed on entering the current state, not yet fired or spent: each fires its timer transition at `dueAt`. Leaving the state disarms them.' }),
    fault: z.object({ message: z.string(), triggerId: nullableId, at: timestamp }).optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
    etag: z.string(),
  })
  .meta({ id: 'Instance' });

export const historyEntrySchema = z
  .object({
    at: timestamp,
    event: z.enum(Object.values(HistoryEvent) as [HistoryEvent, ...HistoryEvent[]]),
    triggerId: nullableId,
    transitionId: nullableId,
    fromStateId: nullableId,
    toStateId: z.string(),
    status: instanceStatusSchema,
  })
  .meta({ id: 'HistoryEntry' });

export const workflowSummarySchema = z.object({ id: z.string(), displayName: z.string(), version: z.number().int().min(1) }).meta({ id: 'WorkflowSummary' });

const outcomeSchema = z.enum(triggerOutcomeValues);
export const operationSchema = z
  .object({
    id: z.string(),
    triggerId: z.string(),
    status: z.enum(Object.values(OperationStatus) as [OperationStatus, ...OperationStatus[]]),
    createdAt: timestamp,
    updatedAt: timestamp,
    candidates: z.number().int().meta({ description: 'Instances the trigger was offered to.' }),
    summary: z.object(Object.fromEntries(triggerOutcomeValues.map((outcome) => [outcome, z.number().int()])) as Record<(typeof triggerOutcomeValues)[number], z.ZodNumber>).meta({ description: 'How many instances had each outcome; counts all of them.' }),
    instances: z
      .array(
        z.object({
          instanceId: z.string(),
          outcome: outcomeSchema,
          transitionId: z.string().optional(),
          fromStateId: z.string().optional(),
          toStateId: z.string().optional(),
          error: z.string().optional().meta({ description: 'Only for `faulted`.' }),
        }),
      )
      .meta({ description: 'The first 1,000 per-instance results; `summary` counts all.' }),
    error: z.string().optional().meta({ description: 'Only when `status` is `failed`: why the dispatch could not finish.' }),
  })
  .meta({ id: 'Operation' });

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
export const acceptedHeaders = z.object({
  Location: headerText('The operation to poll.'),
  'Operation-Location': headerText('The operation to poll (the same URL).'),
  'Retry-After': retryAfterHeaders.shape['Retry-After'],
});
export const ifNoneMatchHeaders = z.object({ 'If-None-Match': z.string().optional().meta({ description: 'An ETag seen before: 304 with no body while it is current.' }) });
