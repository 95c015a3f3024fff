/**
 * @module Dry runs: "what would this trigger do?", answered by the very decision a real
 * trigger makes (decide-trigger.ts), then not saved. No lease, no save, no relay. Conditions are reads by
 * contract and are evaluated for real (external ones included); an action's outbound call is recorded,
 * not sent (it is answered 204, so it changes nothing), and `log` and `raiseTrigger` are listed from the
 * draft, whose lines and rows a dry run never emits or writes.
 */
import type { WorkflowDefinition } from '../definition/definition';
import { decideTrigger } from './decide-trigger';
import type { Effects } from '../steps/effects';
import { TriggerOutcome } from '../model/enums';
import { lifecycleEventWrite, type LifecycleEventData } from './lifecycle-events';
import type { LifecycleEventType } from '../definition/lifecycle-event-type';
import type { Instance } from '../model/instance';
import type { JsonObject } from '../model/json';
import type { ExternalRequest, ExternalServiceClient } from '../steps/outbound-port';
import type { InstanceResult } from './instance-result';
import type { Registry } from '../steps/registry';
import type { Draft } from './draft';
import type { TriggerToRaise } from '../steps/step-types';
import type { Trigger } from '../model/trigger';
import { redactSecrets } from '../model/redaction';

/** An action the trigger would run, with its rendered input; never performed by a dry run. */
export interface SimulatedAction {
  /** Where it is, as faults name it: `action of transition "submit" [0] (invokeExternalService)`. */
  readonly step: string;
  readonly type: string;
  /** invokeExternalService: the request it would send (headers without credentials; no token is fetched). */
  readonly request?: { readonly method: string; readonly url: string; readonly body?: unknown };
  /** log: the line it would write. */
  readonly log?: { readonly level: string; readonly message: string; readonly properties: Readonly<Record<string, unknown>> };
  /** raiseTrigger: the trigger it would raise. */
  readonly trigger?: TriggerToRaise;
}

/** A lifecycle event a dry run would publish (recorded and delivered by a real trigger; here neither). */
export interface SimulatedEvent {
  readonly type: LifecycleEventType;
  /** The subscriptions it would be delivered to. */
  readonly subscriptionIds: readonly string[];
  readonly data: LifecycleEventData;
}

export interface DryRunResult extends InstanceResult {
  /** The context the instance would have after the decision (unchanged when nothing would happen). */
  readonly contextAfter: JsonObject;
  /** Lifecycle events it would publish: those some subscription of the workflow wants, in the order a save would record them. */
  readonly events: readonly SimulatedEvent[];
  readonly raisedTriggers: readonly TriggerToRaise[];
  readonly actions: readonly SimulatedAction[];
}

/** Effects whose action calls are recorded instead of performed; conditions keep the real client. */
export function recordingEffects(effects: Effects): { effects: Effects; requests: Map<string, ExternalRequest> } {
  const requests = new Map<string, ExternalRequest>();
  const recorder = (location: string): ExternalServiceClient => ({
    send: async (request) => {
      requests.set(location, request);
      return { status: 204, body: undefined };
    },
  });
  const { actionHttp: _performed, ...rest } = effects;
  return { effects: { ...rest, actionHttp: recorder }, requests };
}

function parsedBody(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Decides `trigger` for `stored` exactly as a real trigger would, and reports it without saving anything. */
export async function dryRunTrigger(definition: WorkflowDefinition, stored: Instance, trigger: Trigger, effects: Effects, registry: Registry): Promise<DryRunResult> {
  const recording = recordingEffects(effects);
  let draft: Draft | undefined;
  const decision = await decideTrigger(definition, stored, trigger, recording.effects, registry, (made) => (draft = made));
  const actions: SimulatedAction[] = (draft?.actionsRun ?? []).map((run, index, all) => {
    const next = all[index + 1];
    const logs = draft!.logs.slice(run.logsBefore, next?.logsBefore ?? draft!.logs.length);
    const raised = draft!.raised.slice(run.raisedBefore, next?.raisedBefore ?? draft!.raised.length);
    const request = recording.requests.get(run.location);
    return {
      step: run.location,
      type: run.type,
      ...(request ? { request: { method: request.method, url: redactSecrets(request.url), ...(request.body !== undefined ? { body: parsedBody(request.body) } : {}) } } : {}),
      ...(logs[0] ? { log: logs[0] } : {}),
      ...(raised[0] ? { trigger: raised[0] } : {}),
    };
  });
  return {
    ...decision.result,
    // A decision that changes nothing (blocked, no transition) leaves the context as it was.
    contextAfter: decision.change ? decision.change.instance.context : stored.context,
    // The same records a real save would write (lifecycle-events.ts), so what is shown is what would be sent.
    events: decision.change?.historyEntry
      ? lifecycleEventWrite(
          definition,
          stored,
          { instance: decision.change.instance, historyEntry: decision.change.historyEntry, ...(decision.change.precedingEntries ? { precedingEntries: decision.change.precedingEntries } : {}) },
          { kind: 'trigger', trigger },
        ).records.map((record) => ({
          type: record.type,
          subscriptionIds: record.deliveries.map((delivery) => delivery.subscriptionId),
          data: record.data,
        }))
      : [],
    // Only a transition raises: a fault drops what its actions had raised (and so would the real one).
    raisedTriggers: decision.result.outcome === TriggerOutcome.transitioned ? [...(draft?.raised ?? [])] : [],
    actions,
  };
}
