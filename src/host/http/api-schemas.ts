/**
 * @module zod schemas of what the API answers (representations.ts builds the bodies), its headers and
 * its problems. Route contracts use them, and the OpenAPI document and the typed client come from them;
 * a test checks real answers against the document, so the bodies cannot drift from these.
 */
import { z } from 'zod';
import { instanceStatusSchema, OperationStatus, triggerOutcomeValues } from '../../engine/enums';
import { HistoryEvent } from '../../engine/instance';
import { WarningCode } from '../../engine/analysis';
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
