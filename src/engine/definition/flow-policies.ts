/**
 * @module Flow control a workflow declares under `flow`: `unique` (at most one non-final instance per
 * key), `debounce` (a burst of triggers of one name applied once, when it goes quiet) and `rateLimits`
 * (outbound calls per host or per key, throttled). Each policy names a `key`: a
 * `{{...}}` template, or else a JSONata expression, over the instance (and the trigger, where there is one).
 */
import { z } from 'zod';
import { compileExpression, evaluateExpression, hasPlaceholders, parseTemplate, renderTemplate, type ExpressionOptions, type ExpressionScope } from '../expressions/expressions';
import type { JsonValue } from '../model/json';

/** The longest key a policy may compute: a longer one counts as none (the policy does not apply), never as a cut one that could collide. */
export const MAX_FLOW_KEY_LENGTH = 512;
/** Rate limits one workflow may declare. */
export const MAX_RATE_LIMITS_PER_WORKFLOW = 16;
/** The longest rate-limit period. */
export const MAX_RATE_LIMIT_PERIOD_IN_MS = 3600_000;
/** Debounced trigger names one workflow may declare. */
export const MAX_DEBOUNCES_PER_WORKFLOW = 16;
/** The longest quiet period and the longest `maxWaitMs` of a debounce. */
export const MAX_DEBOUNCE_WAIT_IN_MS = 24 * 3600_000;

/** A policy's key: a template when it holds `{{`, else a JSONata expression (`'"everyone"'` is a constant). */
export const flowKeySchema = z
  .string()
  .min(1)
  .max(1024)
  .superRefine((source, ctx) => {
    try {
      if (hasPlaceholders(source)) parseTemplate(source);
      else compileExpression(source);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `is neither a valid template nor a valid JSONata expression: ${error instanceof Error ? error.message : String(error)}` });
    }
  })
  .meta({ description: 'A `{{...}}` template (`customer:{{context.customerId}}`) or a JSONata expression (`context.customerId`; `"all"` for one key for everything).' });

export const UniqueConflict = { reject: 'reject', existing: 'existing' } as const;
export type UniqueConflict = (typeof UniqueConflict)[keyof typeof UniqueConflict];

export const uniquePolicySchema = z.strictObject({
  key: flowKeySchema.describe('Over the creation request: `context` (and `instance.id`). An instance whose key yields nothing is not limited.'),
  onConflict: z
    .enum([UniqueConflict.reject, UniqueConflict.existing])
    .default(UniqueConflict.reject)
    .meta({ description: '`reject`: a second create answers 409 naming the existing instance; `existing`: it answers 200 with the existing instance.' }),
});
export type UniquePolicy = z.infer<typeof uniquePolicySchema>;

export const rateLimitSchema = z
  .strictObject({
    host: z.string().min(1).max(253).optional().meta({ description: 'Calls to this host only (exact, case-insensitive). Absent: every call of the workflow.' }),
    key: flowKeySchema.optional().meta({ description: 'One limit per value of this key (over the instance and trigger). Absent: one per host.' }),
    limit: z.number().int().min(1).max(100_000).meta({ description: 'Calls per `periodMs` (the sustained rate).' }),
    periodMs: z.number().int().min(1).max(MAX_RATE_LIMIT_PERIOD_IN_MS),
    burst: z.number().int().min(1).max(100_000).optional().meta({ description: 'Calls that may go at once after a quiet time. @default limit' }),
  })
  .refine((limit) => limit.host !== undefined || limit.key !== undefined, { message: 'a rate limit names a `host`, a `key`, or both' });
export type RateLimitDefinition = z.infer<typeof rateLimitSchema>;

export const debounceSchema = z
  .strictObject({
    trigger: z.string().min(1).max(256).meta({ description: 'The trigger name whose bursts are coalesced, per instance.' }),
    periodMs: z.number().int().min(1).max(MAX_DEBOUNCE_WAIT_IN_MS).meta({ description: 'The quiet time: the burst is applied this long after its latest trigger.' }),
    maxWaitMs: z.number().int().min(1).max(MAX_DEBOUNCE_WAIT_IN_MS).optional().meta({ description: 'Applied at the latest this long after its first trigger, quiet or not. @default none' }),
    merge: z
      .string()
      .min(1)
      .max(4096)
      .superRefine((source, ctx) => {
        try {
          compileExpression(source);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `is not a valid JSONata expression: ${error instanceof Error ? error.message : String(error)}` });
        }
      })
      .optional()
      .meta({
        description:
          'JSONata giving the parameters to apply, from `previous.parameters` (the burst so far) and `trigger.parameters` (the one arriving), e.g. `$merge([previous.parameters, trigger.parameters])`. @default the latest trigger as it is',
      }),
  })
  .refine((debounce) => debounce.maxWaitMs === undefined || debounce.maxWaitMs >= debounce.periodMs, { message: '`maxWaitMs` is at least `periodMs`', path: ['maxWaitMs'] });
export type DebounceDefinition = z.infer<typeof debounceSchema>;

export const flowSchema = z.strictObject({
  unique: uniquePolicySchema.optional(),
  debounce: z
    .array(debounceSchema)
    .max(MAX_DEBOUNCES_PER_WORKFLOW)
    .superRefine((debounces, ctx) => {
      const seen = new Set<string>();
      debounces.forEach((debounce, index) => {
        if (seen.has(debounce.trigger)) ctx.addIssue({ code: 'custom', path: [index, 'trigger'], message: `"${debounce.trigger}" is debounced twice` });
        seen.add(debounce.trigger);
      });
    })
    .optional(),
  rateLimits: z.array(rateLimitSchema).max(MAX_RATE_LIMITS_PER_WORKFLOW).optional(),
});
export type FlowPolicies = z.infer<typeof flowSchema>;

function keyText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A policy's key for a scope: the template rendered or the expression's value as text; undefined when it
 * yields nothing (the policy does not apply) or more than MAX_FLOW_KEY_LENGTH characters.
 */
export async function evaluateFlowKey(key: string, scope: ExpressionScope, options: ExpressionOptions = {}): Promise<string | undefined> {
  const text = hasPlaceholders(key) ? await renderTemplate(key, scope, 'undefined', options) : keyText(await evaluateExpression(key, scope, options));
  if (text === undefined || text.length === 0 || text.length > MAX_FLOW_KEY_LENGTH) return undefined;
  return text;
}
