/**
 * @module `invokeExternalService` as an action: POSTs the documented request; a non-2xx answer is a
 * fault; a body `{ contextValuesToSetOrAdd, contextValuesToRemove }` changes the context.
 */
import { z } from 'zod';
import { answerError, callExternalService } from '../external-service-call';
import { retryPolicySchema } from '../../definition/error-handling';
import { jsonObjectSchema } from '../../model/json';
import { authenticationSchema, httpUrlSchema, stepBaseShape } from '../../definition/step-schemas';
import { defineAction } from '../step-types';
import { formatPath } from '../../model/validation';
import { redactSecrets } from '../../model/redaction';

const responseSchema = z.looseObject({
  contextValuesToSetOrAdd: jsonObjectSchema.optional(),
  contextValuesToRemove: z.array(z.string()).optional(),
});

export const invokeExternalServiceAction = defineAction({
  type: 'invokeExternalService',
  schema: z.strictObject({
    type: z.literal('invokeExternalService'),
    ...stepBaseShape,
    url: httpUrlSchema,
    contextItemsToInclude: z.array(z.string().min(1)).default([]),
    authentication: authenticationSchema.optional(),
    timeoutMs: z.number().int().positive().max(120_000).optional(),
    /** Retries of this call (error-handling.ts); without it, the workflow's `retry`. */
    retry: retryPolicySchema.optional(),
  }),
  execute: async (config, context) => {
    const body = await callExternalService({ ...config, method: 'POST' }, context);
    // An empty or non-object answer changes nothing: many services answer 204 or "ok".
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const parsed = responseSchema.safeParse(body);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ');
      throw answerError(`the external service ${redactSecrets(config.url)} answered a malformed body (${problems})`);
    }
    context.updateContext(parsed.data.contextValuesToSetOrAdd ?? {}, parsed.data.contextValuesToRemove ?? []);
  },
});
