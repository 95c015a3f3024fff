/**
 * @module `history` on a workflow: how much each history entry records of its change (model/history-record.ts)
 * and how long those records are meant to be kept. `full` (the default) records the trigger with its
 * parameters, the conditions' trace, the context's change and the answers of calls made while deciding;
 * `summary` keeps the trigger's name, id and subjects and the context's change only, enough to rebuild the
 * context after every entry but not to replay a decision (docs/decisions/0026-replayable-history.md).
 */
import { z } from 'zod';
import { parseIsoDuration } from '../timers/timer-definition';
import type { HistoryDetail } from '../model/history-record';

/** The longest `retain` a workflow may ask for (ten years). */
export const MAX_HISTORY_RETAIN_IN_DAYS = 3650;

const retainSchema = z
  .string()
  .min(1)
  .max(64)
  .superRefine((text, ctx) => {
    const duration = parseIsoDuration(text);
    if (typeof duration === 'string') ctx.addIssue({ code: 'custom', message: duration });
    else if (duration.as('days') < 1) ctx.addIssue({ code: 'custom', message: `"${text}" is shorter than the one day a history record is kept at least` });
    else if (duration.as('days') > MAX_HISTORY_RETAIN_IN_DAYS)
      ctx.addIssue({ code: 'custom', message: `"${text}" is longer than the ${MAX_HISTORY_RETAIN_IN_DAYS} days a history record may be kept` });
  });

export const historyPolicySchema = z.strictObject({
  detail: z
    .enum(['full', 'summary'])
    .optional()
    .describe('`full` (default): trigger with parameters, trace, context change, call answers; `summary`: trigger name and subjects and the context change only.'),
  retain: retainSchema.optional().describe('ISO 8601 duration (e.g. P90D): how long history records are kept; absent: for the life of the instance.'),
});
export type HistoryPolicy = z.infer<typeof historyPolicySchema>;

/** The detail a workflow's entries record (`full` unless it says otherwise). */
export function historyDetailOf(definition: { readonly history?: HistoryPolicy }): HistoryDetail {
  return definition.history?.detail ?? 'full';
}
