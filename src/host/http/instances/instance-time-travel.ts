/**
 * @module Time travel: GET /api/instances/{instanceId}/history/{sequence}, the instance as it was after one
 * history entry, rebuilt from the entries' records (docs/decisions/0026-replayable-history.md); and the body
 * of one history entry, shared with the history list.
 */
import { z } from 'zod';
import { Role } from '../access';
import { instanceStatusSchema, jsonObjectSchema, jsonPatchSchema, jsonValueSchema, type HistoryEntry } from '../../../engine/model';
import { actorSchema, historyEntrySchema, timestamp } from '../api-schemas';
import { defineRoute } from '../route';
import type { RouteDefinition } from '../types';

const recordedTriggerSchema = z.object({
  id: z.string(),
  name: z.string(),
  subjects: z.array(z.string()),
  contentType: z.string().optional(),
  parameters: jsonObjectSchema.optional().meta({ description: 'Absent with `history.detail: summary`.' }),
  actor: actorSchema.optional(),
});

export const historyRecordSchema = z
  .object({
    detail: z.enum(['full', 'summary']),
    partOfChange: z.number().int().optional().meta({ description: "An automatic step inside one change: the sequence of that change's last entry, whose record holds it." }),
    trigger: recordedTriggerSchema.optional().meta({ description: 'The trigger as it came in (absent for a creation, recovery, migration, ...).' }),
    trace: z.array(z.object({ path: z.string(), type: z.string(), result: z.union([z.boolean(), z.enum(['error', 'skipped'])]), detail: z.string().optional() })).optional(),
    traceOmitted: z.number().int().optional().meta({ description: 'Conditions evaluated but not recorded (past the limit).' }),
    contextChange: jsonPatchSchema.optional().meta({ description: 'The context before → after the change, as an RFC 6902 JSON Patch.' }),
    contextChangeOmitted: z.object({ bytes: z.number().int() }).optional().meta({ description: 'The change was too large to record: the context cannot be rebuilt past this entry.' }),
    calls: z
      .array(
        z.object({
          by: z.string(),
          method: z.enum(['GET', 'POST']),
          url: z.string(),
          status: z.number().int().optional(),
          body: jsonValueSchema.optional(),
          bodySummary: z
            .object({ bytes: z.number().int(), omitted: z.literal(true) })
            .optional()
            .meta({ description: 'Instead of `body` when the answer was larger than 4 KiB.' }),
          error: z.string().optional(),
        }),
      )
      .optional()
      .meta({ description: 'External calls made while deciding, with their answers, in order.' }),
    callsOmitted: z.number().int().optional(),
  })
  .meta({ id: 'HistoryRecord', description: 'What came in and what changed (absent on entries written before records were kept).' });

const historyEntryWithRecordSchema = historyEntrySchema.extend({ sequence: z.number().int().min(0), record: historyRecordSchema.optional() }).meta({ id: 'HistoryEntryWithRecord' });

const instanceAtEntrySchema = z
  .object({
    instanceId: z.string(),
    sequence: z.number().int(),
    at: timestamp,
    event: historyEntrySchema.shape.event,
    stateId: z.string(),
    status: instanceStatusSchema,
    workflowVersion: z.number().int(),
    context: jsonObjectSchema,
    contextAsOf: z.number().int().meta({ description: 'The last entry up to `sequence` whose record holds the context (an automatic step inside one change shows the context before it).' }),
    entry: historyEntryWithRecordSchema,
  })
  .meta({ id: 'InstanceAtEntry' });

/** One history entry as the API answers it (the list leaves out `sequence` and `record`: `withRecord` adds them). */
export function historyEntryBody(entry: HistoryEntry, withRecord = false) {
  const { at, triggerId, transitionId, fromStateId, toStateId, status, event, fromVersion, toVersion, operationId, contextPatch, by, error, actor, retriedBy, sequence, record } = entry;
  return {
    at,
    event,
    triggerId,
    // A trigger's operation has the trigger's id; a migration or bulk action recorded its own.
    operationId: operationId ?? triggerId,
    transitionId,
    fromStateId,
    toStateId,
    status,
    ...(fromVersion !== undefined ? { fromVersion } : {}),
    ...(toVersion !== undefined ? { toVersion } : {}),
    ...(contextPatch !== undefined ? { contextPatch } : {}),
    ...(by !== undefined ? { by } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(actor !== undefined ? { actor } : {}),
    ...(retriedBy !== undefined ? { retriedBy } : {}),
    ...(withRecord ? { sequence, ...(record ? { record } : {}) } : {}),
  };
}

const entryPath = z.object({
  instanceId: z.string(),
  sequence: z.coerce.number().int().min(0).max(2_147_483_647).meta({ description: "The entry's sequence number (0 is the creation)." }),
});

export const instanceTimeTravelRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'getInstanceAtEntry',
    methods: ['GET'],
    route: 'instances/{instanceId}/history/{sequence}',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'The instance as it was after one history entry (time travel)',
      description:
        "Rebuilt from the history's records: the state, status and version after the entry, and the context from the entries' RFC 6902 patches applied in order. The entry itself comes with its record: the trigger, the conditions' trace, the context change and the answers of calls made while deciding.",
      tags: ['instances'],
      path: entryPath,
      responses: {
        200: { description: 'The instance as it was after the entry.', body: instanceAtEntrySchema },
        400: 'The sequence is not a whole number, or an entry on the way records no context change (written before records were kept, or too large).',
        404: 'No such instance, or no such entry.',
      },
    },
    async handle({ params }, { engine }) {
      const at = await engine.getInstanceAtEntry(params.instanceId, params.sequence);
      return { status: 200, body: { ...at, entry: historyEntryBody(at.entry, true) } };
    },
  }),
];
