/** @module Triggers: something that happened, naming the subjects it concerns. */
import { z } from 'zod';
import { jsonObjectSchema, jsonSizeInBytes, type JsonObject } from './json';
import { parseWith } from './validation';

export const MAX_SUBJECTS_PER_TRIGGER = 100;
export const MAX_TRIGGER_SIZE_IN_BYTES = 64 * 1024;

/** Ids of triggers, instances and operations: safe in URLs and (encoded) in table keys. */
export const idSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -');

/** A trigger's fields, before the size check (the API describes bodies with it). */
export const triggerFieldsSchema = z.strictObject({
  id: idSchema.optional(),
  name: z.string().min(1).max(256),
  subjects: z.array(z.string().min(1).max(1024)).min(1, 'a trigger must name at least one subject').max(MAX_SUBJECTS_PER_TRIGGER, `at most ${MAX_SUBJECTS_PER_TRIGGER} subjects`),
  contentType: z.string().min(1).max(256).optional(),
  parameters: jsonObjectSchema.optional(),
});

export const triggerInputSchema = triggerFieldsSchema
  .superRefine((trigger, ctx) => {
    const size = jsonSizeInBytes(trigger);
    if (size > MAX_TRIGGER_SIZE_IN_BYTES) {
      ctx.addIssue({ code: 'custom', path: [], message: `the trigger is ${size} bytes; at most ${MAX_TRIGGER_SIZE_IN_BYTES} are allowed` });
    }
  });
export type TriggerInput = z.infer<typeof triggerInputSchema>;

/** A validated trigger with its id assigned. */
export interface Trigger {
  readonly id: string;
  readonly name: string;
  readonly subjects: readonly string[];
  readonly contentType?: string;
  readonly parameters?: JsonObject;
}

/** Validates input from outside; throws ValidationError listing every problem. */
export function parseTrigger(input: unknown, newId: () => string): Trigger {
  const parsed = parseWith(triggerInputSchema, input, 'The trigger is invalid');
  return { ...parsed, id: parsed.id ?? newId(), subjects: [...new Set(parsed.subjects)] };
}
