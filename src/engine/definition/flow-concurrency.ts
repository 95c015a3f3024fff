/**
 * @module The `concurrency` flow-control policy of a workflow (`flow.concurrency`): at most `limit`
 * trigger applications of the workflow in flight per key across the deployment; the rest wait in order for
 * at most `maxWait`, then the trigger is handed back as retryable (never dropped). The runtime enforces it
 * (admission/concurrency-slots.ts); this is its schema.
 */
import { z } from 'zod';
import { parseIsoDuration } from '../timers/timer-definition';
import { flowKeySchema } from './flow-policies';

/** At most this many trigger applications per key may be allowed at once (a definition or an override). */
export const MAX_CONCURRENCY_LIMIT = 1000;
/** The longest a trigger may wait for a slot before it is handed back as retryable. */
export const MAX_CONCURRENCY_WAIT_IN_MS = 5 * 60_000;
/** The wait when the policy names none. */
export const DEFAULT_CONCURRENCY_WAIT = 'PT30S';

export const concurrencyLimitSchema = z.number().int().min(1).max(MAX_CONCURRENCY_LIMIT);

const waitSchema = z
  .string()
  .min(1)
  .max(64)
  .superRefine((text, ctx) => {
    const duration = parseIsoDuration(text);
    if (typeof duration === 'string') ctx.addIssue({ code: 'custom', message: duration });
    else if (duration.as('milliseconds') > MAX_CONCURRENCY_WAIT_IN_MS) ctx.addIssue({ code: 'custom', message: `"${text}" is longer than the 5 minutes a trigger may wait for a slot` });
  });

export const concurrencyPolicySchema = z.strictObject({
  /** Which triggers share a limit, e.g. `context.customerId`, or `'all'` (a JSONata string) for one global limit. */
  key: flowKeySchema,
  /** Applications in flight at once per key. */
  limit: concurrencyLimitSchema,
  /** ISO 8601 duration: how long a trigger waits for a slot before it is handed back as retryable. @default PT30S */
  maxWait: waitSchema.optional(),
});
export type ConcurrencyPolicy = z.infer<typeof concurrencyPolicySchema>;

/** The policy's wait in ms. */
export function concurrencyWaitInMs(policy: ConcurrencyPolicy): number {
  const duration = parseIsoDuration(policy.maxWait ?? DEFAULT_CONCURRENCY_WAIT);
  return typeof duration === 'string' ? 30_000 : duration.as('milliseconds');
}

/** This policy's part of the definition's `flow` object (other flow-control policies add their own fields). */
export const flowConcurrencyShape = {
  /** At most `limit` trigger applications in flight per key (flow-concurrency.ts). */
  concurrency: concurrencyPolicySchema.optional(),
};
