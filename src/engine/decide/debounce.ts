/**
 * @module `flow.debounce` (definition/flow-policies.ts), decided: a trigger of a debounced name that the
 * instance would take is held back on the instance (`debounces`, one burst per name) and recorded as
 * applied with the outcome `debounced`, so a repeat of it is a `duplicate` and it counts once. The burst
 * is applied, once, by a timer (a `timer` outbox row, and a due-timer row locally) at its latest
 * trigger plus the quiet period, or at its first plus `maxWaitMs`: each trigger of the burst moves the
 * timer (a new timer id), and the timers it replaced find themselves stale. The burst applies as its
 * latest trigger (its subjects, actor and causal depth: a burst that raises its own name runs into the
 * causal depth limit like any loop), under the timer's id, with the merged parameters when the policy
 * merges. A suspended or faulted instance keeps its bursts; a resume or recovery schedules them again.
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { DebounceDefinition } from '../definition/flow-policies';
import { evaluateExpression, type ExpressionScope } from '../expressions/expressions';
import { TriggerOutcome, InstanceStatus, inactiveStatuses } from '../model/enums';
import type { Instance, PendingDebounce } from '../model/instance';
import type { JsonObject, JsonValue } from '../model/json';
import { OutboxKind, type OutboxRow } from '../model/outbox';
import type { Trigger } from '../model/trigger';
import { internalOf, type DebounceTarget } from '../model/internal-trigger';
import { DEBOUNCE_TRIGGER_ID_PREFIX } from '../model/trigger-ids';
import type { Effects } from '../steps/effects';
import { unchanged, withEntryActor, type Decision } from './decision';
import { shortDetail, type TraceEntry } from './decision-trace';
import type { InstanceResult } from './instance-result';
import { rememberApplied } from './instance-changes';
import { debounceTimersOf } from './timers';

/**
 * The debounce policy of a trigger a client or an action sent, with its place in `flow.debounce`. System
 * triggers are never held back, nor is a burst being applied (its id is its timer's, `debounce:`).
 */
export function debounceOf(definition: WorkflowDefinition, trigger: Trigger): { readonly policy: DebounceDefinition; readonly index: number } | undefined {
  if (internalOf(trigger) || trigger.recipient || trigger.id.startsWith(DEBOUNCE_TRIGGER_ID_PREFIX)) return undefined;
  const index = definition.flow?.debounce?.findIndex((policy) => policy.trigger === trigger.name) ?? -1;
  return index < 0 ? undefined : { policy: definition.flow!.debounce![index]!, index };
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The instance without its burst of `triggerName` (the key left out when none is left). */
export function withoutDebounce(instance: Instance, triggerName: string): Instance {
  const rest = (instance.debounces ?? []).filter((pending) => pending.triggerName !== triggerName);
  if (rest.length > 0) return { ...instance, debounces: rest };
  const { debounces: _none, ...plain } = instance;
  return plain;
}

/** The timer outbox rows of the instance's bursts (`names`: only those). */
export function debounceOutboxRows(instance: Instance, names?: ReadonlySet<string>): OutboxRow[] {
  return debounceTimersOf(instance)
    .filter((timer) => !names || names.has(timer.debounce!.triggerName))
    .map((timer) => ({ id: timer.timerId, kind: OutboxKind.timer, payload: timer }));
}

/** The parameters after `trigger` joins the burst: the policy's merge of the burst's and the trigger's, or the trigger's own. */
async function mergedParameters(
  policy: DebounceDefinition,
  existing: PendingDebounce | undefined,
  trigger: Trigger,
  scope: ExpressionScope,
  effects: Effects,
  trace: TraceEntry[],
  path: string,
): Promise<Trigger['parameters']> {
  if (!policy.merge || !existing) return trigger.parameters;
  try {
    const merged = await evaluateExpression(policy.merge, { ...scope, previous: { parameters: existing.trigger.parameters ?? {}, coalesced: existing.coalesced } } as ExpressionScope, {
      now: effects.now,
    });
    if (isJsonObject(merged)) return merged;
    trace.push({
      path: `${path}.merge`,
      type: 'debounce',
      result: 'error',
      detail: shortDetail(`the merge gave ${merged === undefined ? 'nothing' : typeof merged}, not an object: the latest trigger's parameters are kept`),
    });
  } catch (error) {
    trace.push({
      path: `${path}.merge`,
      type: 'debounce',
      result: 'error',
      detail: shortDetail(`the merge failed (${error instanceof Error ? error.message : String(error)}): the latest trigger's parameters are kept`),
    });
  }
  return trigger.parameters;
}

/**
 * Holds `trigger` back in its burst: the decision to save (the burst on the instance, the trigger recorded
 * as applied, the burst's timer). Call once the instance is known to take it (active, interested, not a repeat).
 */
export async function decideDebounce(instance: Instance, trigger: Trigger, debounce: NonNullable<ReturnType<typeof debounceOf>>, scope: ExpressionScope, effects: Effects): Promise<Decision> {
  const { policy, index } = debounce;
  const now = effects.now();
  const path = `flow.debounce[${index}]`;
  const trace: TraceEntry[] = [];
  const existing = instance.debounces?.find((pending) => pending.triggerName === trigger.name);
  const parameters = await mergedParameters(policy, existing, trigger, scope, effects, trace, path);
  const firstAt = existing?.firstAt ?? now.toISOString();
  const latestAt = Date.parse(firstAt) + (policy.maxWaitMs ?? Number.POSITIVE_INFINITY);
  const dueAt = new Date(Math.min(now.getTime() + policy.periodMs, latestAt)).toISOString();
  const coalesced = (existing?.coalesced ?? 0) + 1;
  const { parameters: _own, ...latest } = trigger;
  const pending: PendingDebounce = { triggerName: trigger.name, firstAt, dueAt, coalesced, trigger: { ...latest, ...(parameters !== undefined ? { parameters } : {}) } };
  trace.push({
    path,
    type: 'debounce',
    result: true,
    detail: shortDetail(
      `held back: ${coalesced} "${trigger.name}" trigger${coalesced === 1 ? '' : 's'} in this burst, applied at ${dueAt} unless another comes first (quiet ${policy.periodMs} ms${policy.maxWaitMs !== undefined ? `, at the latest ${new Date(latestAt).toISOString()}` : ''})`,
    ),
  });
  const result: InstanceResult = { instanceId: instance.id, outcome: TriggerOutcome.debounced, fromStateId: instance.stateId, trace };
  const held: Instance = { ...withoutDebounce(instance, trigger.name), updatedAt: now.toISOString(), appliedTriggers: rememberApplied(instance, trigger.id, result) };
  const next: Instance = { ...held, debounces: [...(held.debounces ?? []), pending] };
  const outbox = debounceOutboxRows(next, new Set([trigger.name]));
  return { result, change: { instance: { ...next, outbox: [...instance.outbox, ...outbox.map((row) => row.id)] }, outbox }, logs: [] };
}

/**
 * A debounce's trigger: applies its burst through `decide` (the ordinary decision, on the instance
 * without the burst) when it is still the one pending; whatever that decides, the burst is gone in the
 * same save. A stale one (the burst moved on, was applied, or belongs to another incarnation) is
 * `notInterested`; an inactive instance keeps the burst (`notActive`) until it is resumed or recovered.
 */
export async function decideDebounceRelease(
  instance: Instance,
  trigger: Trigger,
  target: DebounceTarget,
  decide: (applied: Trigger, without: Instance) => Promise<Decision>,
  now: Date,
): Promise<Decision> {
  const pending = instance.debounces?.find((candidate) => candidate.triggerName === target.triggerName);
  const timerId = pending && debounceTimersOf({ ...instance, debounces: [pending] })[0]!.timerId;
  if (!pending || target.incarnation !== instance.incarnation || pending.trigger.id !== target.triggerId || timerId !== trigger.id) {
    return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.notInterested });
  }
  if (inactiveStatuses.has(instance.status)) return unchanged({ instanceId: instance.id, outcome: TriggerOutcome.notActive });
  const without = withoutDebounce(instance, target.triggerName);
  // The burst applies its latest trigger: its entry names that trigger's sender, not the wake-up that ran it.
  const decision = withEntryActor(await decide({ ...pending.trigger, id: trigger.id }, without), pending.trigger.actor);
  const note: TraceEntry = {
    path: 'flow.debounce',
    type: 'debounce',
    result: true,
    detail: shortDetail(`applies the burst of ${pending.coalesced} "${pending.triggerName}" trigger${pending.coalesced === 1 ? '' : 's'} (the latest: "${pending.trigger.id}")`),
  };
  const result = { ...decision.result, trace: [note, ...(decision.result.trace ?? [])] };
  if (decision.change) return { ...decision, result };
  return { ...decision, result, change: { instance: { ...without, updatedAt: now.toISOString() }, outbox: [] } };
}

/** A change that ends its instance (complete, cancelled) drops its bursts: nothing would take them. */
export function withoutDebouncesWhenEnded(decision: Decision): Decision {
  const change = decision.change;
  if (!change?.instance.debounces || (change.instance.status !== InstanceStatus.complete && change.instance.status !== InstanceStatus.cancelled)) return decision;
  const { debounces: _dropped, ...instance } = change.instance;
  return { ...decision, change: { ...change, instance } };
}

/**
 * The bursts of an instance made active again (resumed, recovered) handed to the scheduler again: due
 * when they were, or now if that passed while it could not take them (their timers were answered
 * `notActive`). A new due time is a new timer id, so the spent schedule is not mistaken for it.
 */
export function withDebouncesRescheduled(decision: Decision, now: Date): Decision {
  const change = decision.change;
  if (!change?.instance.debounces?.length) return decision;
  const debounces = change.instance.debounces.map((pending) => (Date.parse(pending.dueAt) > now.getTime() ? pending : { ...pending, dueAt: now.toISOString() }));
  const instance = { ...change.instance, debounces };
  const outbox = [...change.outbox, ...debounceOutboxRows(instance)];
  return { ...decision, change: { ...change, instance: { ...instance, outbox: outbox.map((row) => row.id) }, outbox } };
}
