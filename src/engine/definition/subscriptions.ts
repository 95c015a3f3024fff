/**
 * @module Workflow-level event subscriptions (shared/design/workflow-model.md, "Lifecycle events"): who
 * hears which lifecycle events of the workflow's instances, with which context keys, under which identity.
 * Validated with the definition (at most 10 per workflow, unique ids).
 */
import { z } from 'zod';
import { LifecycleEventType, lifecycleEventTypeSchema } from './lifecycle-event-type';

export const MAX_SUBSCRIPTIONS_PER_WORKFLOW = 10;

export const subscriptionSchema = z.strictObject({
  /** Names the subscription in delivery records (`GET /api/instances/{id}/events`). */
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9._-]+$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ -'),
  /** Where the CloudEvents are POSTed; reached through the outbound pipeline (allow-list, timeout). */
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048),
  /** Absent: every lifecycle event. */
  events: z.array(lifecycleEventTypeSchema).min(1).max(Object.keys(LifecycleEventType).length).optional(),
  /** Context keys copied into each event's `data.context` (none by default). */
  contextItemsToInclude: z.array(z.string().min(1).max(256)).max(100).optional(),
  authentication: z.strictObject({ managedIdentity: z.string().min(1).max(1024) }).optional(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

// Unique ids are checked with the definition's other cross-references (definition-validation.ts), on the
// input as it came: a refinement here would run only once every subscription had parsed, so a repeated id
// went unlisted whenever another subscription had a problem of its own.
export const subscriptionsSchema = z.array(subscriptionSchema).max(MAX_SUBSCRIPTIONS_PER_WORKFLOW, `a workflow may have at most ${MAX_SUBSCRIPTIONS_PER_WORKFLOW} subscriptions`);

/** `subscriptions[i].id` issues for each id that repeats an earlier one; on unparsed input, so they are listed whatever else fails. */
export function repeatedSubscriptionIds(subscriptions: unknown): { readonly index: number; readonly id: string; readonly first: number }[] {
  if (!Array.isArray(subscriptions)) return [];
  const seen = new Map<string, number>();
  const repeated: { index: number; id: string; first: number }[] = [];
  subscriptions.forEach((subscription: unknown, index) => {
    const id = (subscription as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    const first = seen.get(id);
    if (first !== undefined) repeated.push({ index, id, first });
    else seen.set(id, index);
  });
  return repeated;
}

/** Whether `subscription` wants events of `type`. */
export function wants(subscription: Subscription, type: LifecycleEventType): boolean {
  return !subscription.events || subscription.events.includes(type);
}
