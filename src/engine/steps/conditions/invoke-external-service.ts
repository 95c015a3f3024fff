/**
 * @module `invokeExternalService` as a condition: true when the service answers 2xx with the JSON body
 * `true`, false for `false`; any other status or body is a fault. Adds its `interests` to the state's.
 */
import { z } from 'zod';
import { answerError, callExternalService } from '../external-service-call';
import { retryPolicySchema } from '../../definition/error-handling';
import { authenticationSchema, httpUrlSchema, stepBaseShape, templateSchema } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';
import { redactSecrets } from '../../model/redaction';

export const invokeExternalServiceCondition = defineCondition({
  type: 'invokeExternalService',
  schema: z.strictObject({
    type: z.literal('invokeExternalService'),
    ...stepBaseShape,
    url: httpUrlSchema,
    method: z.enum(['GET', 'POST']).default('POST'),
    interests: z.array(templateSchema.pipe(z.string().min(1).max(1024))).default([]),
    contextItemsToInclude: z.array(z.string().min(1)).default([]),
    authentication: authenticationSchema.optional(),
    timeoutMs: z.number().int().positive().max(120_000).optional(),
    /** Retries of this call (error-handling.ts); without it, the workflow's `retry`. */
    retry: retryPolicySchema.optional(),
  }),
  evaluate: async (config, context) => {
    const body = await callExternalService(config, context);
    context.note?.(`${config.method} ${redactSecrets(config.url)} answered ${body === undefined ? 'nothing' : JSON.stringify(body)}`);
    if (typeof body !== 'boolean') {
      throw answerError(`the external service ${redactSecrets(config.url)} answered ${body === undefined ? 'nothing' : JSON.stringify(body).slice(0, 200)}, not true or false`);
    }
    return body;
  },
  interests: (config) => config.interests,
});
