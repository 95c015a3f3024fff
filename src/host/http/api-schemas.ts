/**
 * @module zod schemas of what the API answers (representations.ts builds the bodies), its headers and
 * its problems. Route contracts use them, and the OpenAPI document and the typed client come from them;
 * a test checks real answers against the document, so the bodies cannot drift from these. The resources
 * (resource-schemas.ts) and operations (operation-schemas.ts) have their own modules, re-exported here.
 */
import { z } from 'zod';
import { instanceStatusSchema } from '../../engine/model';
import { WarningCode } from '../../engine/analysis';
import type { SchemaReference } from './types';

export * from './resource-schemas';
export * from './operation-schemas';

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
