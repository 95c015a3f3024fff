/**
 * @module `capacity` on a state: at most `limit` instances per key in that state at once. A transition into
 * a full state neither faults nor is dropped: its trigger waits in a durable queue for that key and state
 * and is applied when an instance leaves, or answers `capacityTimeout` after `timeout`. The runtime enforces
 * it (admission/state-capacity.ts); this is its schema.
 */
import { z } from 'zod';
import { parseIsoDuration } from '../timers/timer-definition';
import { flowKeySchema } from './flow-policies';

/** At most this many instances per key in one state. */
export const MAX_STATE_CAPACITY = 10_000;
/** The longest a trigger may wait for room in a full state. */
export const MAX_CAPACITY_TIMEOUT_IN_MS = 30 * 24 * 3600_000;
/** The wait when the state names none. */
export const DEFAULT_CAPACITY_TIMEOUT = 'P1D';

const timeoutSchema = z
  .string()
  .min(1)
  .max(64)
  .superRefine((text, ctx) => {
    const duration = parseIsoDuration(text);
    if (typeof duration === 'string') ctx.addIssue({ code: 'custom', message: duration });
    else if (duration.as('milliseconds') > MAX_CAPACITY_TIMEOUT_IN_MS) ctx.addIssue({ code: 'custom', message: `"${text}" is longer than the 30 days a trigger may wait for room in a state` });
  });

export const stateCapacitySchema = z.strictObject({
  key: flowKeySchema.describe(
    "Over the instance as the trigger finds it (`context` before the transition's actions, `instance` in the state it would enter) and the trigger, and kept on the instance for its leaving; e.g. `customer:{{context.customerId}}`. A key that yields nothing is not limited.",
  ),
  limit: z.number().int().min(1).max(MAX_STATE_CAPACITY).meta({ description: 'Instances per key in this state at once.' }),
  timeout: timeoutSchema.optional().meta({ description: 'ISO 8601 duration a trigger waits for room before it answers `capacityTimeout`. @default P1D' }),
});
export type StateCapacityDefinition = z.infer<typeof stateCapacitySchema>;

/** The state's wait in ms. */
export function capacityTimeoutInMs(capacity: StateCapacityDefinition): number {
  const duration = parseIsoDuration(capacity.timeout ?? DEFAULT_CAPACITY_TIMEOUT);
  return typeof duration === 'string' ? 24 * 3600_000 : duration.as('milliseconds');
}
