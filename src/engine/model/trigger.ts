/** @module Triggers: something that happened, naming the subjects it concerns. */
import { z } from 'zod';
import type { Actor } from './actor';
import { jsonObjectSchema, jsonSizeInBytes, type JsonObject } from './json';
import { DEBOUNCE_TRIGGER_ID_PREFIX, RAISED_TRIGGER_ID_PREFIX, RETRY_TRIGGER_ID_PREFIX, TIMER_TRIGGER_ID_PREFIX } from './trigger-ids';
import type { CapacityReoffer, InternalTrigger } from './internal-trigger';
import { parseWith } from './validation';

export const MAX_SUBJECTS_PER_TRIGGER = 100;
export const MAX_TRIGGER_SIZE_IN_BYTES = 64 * 1024;
/** Triggers waiting to run go highest priority first (1 lowest, 5 highest); a trigger naming none has this one. */
export const DEFAULT_TRIGGER_PRIORITY = 3;
export const MIN_TRIGGER_PRIORITY = 1;
export const MAX_TRIGGER_PRIORITY = 5;
/**
 * How deep one chain of follow-up work may go (causal-budget.ts): every raised trigger, timer due at
 * once, child start and child notification is one step deeper than the change that caused it (a client's
 * trigger or request is depth 0). A change that would cause work deeper than this faults its instance
 * instead, naming the loop (a transition that raises its own trigger would otherwise run forever).
 */
export const MAX_CAUSAL_DEPTH = 32;
/** @deprecated The hop limit of raised triggers became the causal depth limit of every kind of follow-up work. */
export const MAX_TRIGGER_HOPS = MAX_CAUSAL_DEPTH;

/** Ids of triggers, instances and operations: safe in URLs and (encoded) in table keys. */
export const idSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -');

/** A client's trigger id: the `raised:` prefix belongs to triggers raised by actions, `timer:` to timers, `retry:` to pending retries. */
export const clientTriggerIdSchema = idSchema
  .refine((id) => !id.startsWith(RAISED_TRIGGER_ID_PREFIX), {
    message: `must not start with "${RAISED_TRIGGER_ID_PREFIX}": that prefix is reserved for triggers raised by actions`,
  })
  .refine((id) => !id.startsWith(TIMER_TRIGGER_ID_PREFIX), {
    message: `must not start with "${TIMER_TRIGGER_ID_PREFIX}": that prefix is reserved for timers`,
  })
  .refine((id) => !id.startsWith(RETRY_TRIGGER_ID_PREFIX), {
    message: `must not start with "${RETRY_TRIGGER_ID_PREFIX}": that prefix is reserved for pending retries`,
  })
  .refine((id) => !id.startsWith(DEBOUNCE_TRIGGER_ID_PREFIX), {
    message: `must not start with "${DEBOUNCE_TRIGGER_ID_PREFIX}": that prefix is reserved for debounced triggers`,
  });

const triggerShape = {
  name: z.string().min(1).max(256),
  subjects: z.array(z.string().min(1).max(1024)).min(1, 'a trigger must name at least one subject').max(MAX_SUBJECTS_PER_TRIGGER, `at most ${MAX_SUBJECTS_PER_TRIGGER} subjects`),
  contentType: z.string().min(1).max(256).optional(),
  parameters: jsonObjectSchema.optional(),
  priority: z
    .number()
    .int()
    .min(MIN_TRIGGER_PRIORITY)
    .max(MAX_TRIGGER_PRIORITY)
    .optional()
    .meta({ description: `Where triggers wait to run, higher goes first: ${MIN_TRIGGER_PRIORITY} (lowest) to ${MAX_TRIGGER_PRIORITY}. @default ${DEFAULT_TRIGGER_PRIORITY}` }),
};

function checkSize(trigger: object, ctx: z.RefinementCtx): void {
  const size = jsonSizeInBytes(trigger);
  if (size > MAX_TRIGGER_SIZE_IN_BYTES) {
    ctx.addIssue({ code: 'custom', path: [], message: `the trigger is ${size} bytes; at most ${MAX_TRIGGER_SIZE_IN_BYTES} are allowed` });
  }
}

/** A client's trigger's fields, before the size check (the API describes bodies with it). */
export const triggerFieldsSchema = z.strictObject({ id: clientTriggerIdSchema.optional(), ...triggerShape });

/** A trigger from a client (`POST /api/triggers`). */
export const triggerInputSchema = triggerFieldsSchema.superRefine(checkSize);
export type TriggerInput = z.infer<typeof triggerInputSchema>;

/** A trigger an action raises, checked before it goes to the outbox (its id is assigned by the engine). */
export const raisedTriggerSchema = z.strictObject(triggerShape).superRefine(checkSize);

/**
 * What a client's trigger is (`POST /api/triggers`, `POST /api/instances/{id}/triggers`): the fields its
 * strict input schema accepts, with its id assigned. A client's body can carry nothing else.
 */
export interface ClientTrigger {
  readonly id: string;
  readonly name: string;
  readonly subjects: readonly string[];
  readonly contentType?: string;
  readonly parameters?: JsonObject;
  /** 1-5: where triggers wait to run, higher goes first. Absent: DEFAULT_TRIGGER_PRIORITY (triggerPriority). */
  readonly priority?: number;
}

/**
 * A validated trigger with its id assigned: a client's fields, what the engine and the host know of where
 * it came from, and, on a trigger the engine made for itself, which internal kind it is (`internal`).
 */
export interface Trigger extends ClientTrigger {
  /**
   * How many steps of follow-up work led to this trigger (causal-budget.ts): absent (0) for a client's,
   * 1 for one raised while applying it or creating an instance, one more per step after that.
   */
  readonly causalDepth?: number;
  /**
   * What is left of the causal budget of the tree of follow-up work it belongs to (causal-budget.ts):
   * absent (MAX_CAUSAL_BUDGET, the whole budget) for a client's, a due-later timer's and rows written
   * before the budget existed.
   */
  readonly causalBudget?: number;
  /** @deprecated The name `causalDepth` had on rows written before causal depths existed; read, never written. */
  readonly hops?: number;
  /** The instance whose change raised it (absent for a client's trigger, a timer's, a child's notification). */
  readonly raisedBy?: string;
  /**
   * Who sent it: set by the host from the authenticated caller (a client's body cannot: the input schema
   * is strict), `system` with the causing actor for raised triggers and children's notifications.
   */
  readonly actor?: Actor;
  /**
   * Present only on a system trigger addressed to one instance that must not miss it (a child's
   * `ChildCompleted`, ...; held-triggers.ts): another incarnation of that id answers `notInterested`, and
   * a suspended or faulted one keeps it until it is resumed or recovered. Addressing goes with any kind (a
   * capacity re-offer is addressed, and so is the release of whatever was held), so it sits beside `internal`.
   */
  readonly recipient?: TriggerRecipient;
  /**
   * Present only on a trigger the engine made for itself (internal-trigger.ts): which kind it is. Read it
   * with `internalOf`, which also reads the optional fields rows written before the union carried.
   */
  readonly internal?: InternalTrigger;
}

/** The one instance a system trigger is for. */
export interface TriggerRecipient {
  readonly instanceId: string;
  /** Absent for an instance without an incarnation. */
  readonly incarnation?: string;
  /** Set on the copy that releases a held trigger: the id of the held trigger it applies. */
  readonly releases?: string;
}

/** The waiting trigger a re-offer applies, as deep in follow-up work (and with the budget) the re-offer carries. */
export function reofferedTrigger(reoffer: Trigger, target: CapacityReoffer): Trigger {
  const { causalDepth: _depth, causalBudget: _budget, ...waiting } = target.trigger;
  return {
    ...waiting,
    ...(reoffer.causalDepth !== undefined ? { causalDepth: reoffer.causalDepth } : {}),
    ...(reoffer.causalBudget !== undefined ? { causalBudget: reoffer.causalBudget } : {}),
  };
}

/** The trigger's priority, the default when it names none. */
export function triggerPriority(trigger: Pick<Trigger, 'priority'>): number {
  return trigger.priority ?? DEFAULT_TRIGGER_PRIORITY;
}

/** Validates input from outside; throws ValidationError listing every problem. */
export function parseTrigger(input: unknown, newId: () => string): Trigger {
  return triggerFromInput(parseWith(triggerInputSchema, input, 'The trigger is invalid'), newId);
}

/** The trigger a parsed client input stands for: an id when it named none, each subject once. */
export function triggerFromInput(parsed: TriggerInput, newId: () => string): Trigger {
  return { ...parsed, id: parsed.id ?? newId(), subjects: [...new Set(parsed.subjects)] };
}
