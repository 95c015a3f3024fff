/**
 * @module A lifecycle event as a CloudEvents 1.0 event in structured JSON mode, built and serialised by
 * the CNCF `cloudevents` SDK (which also validates it against the spec): `type`
 * `io.signalbox.instance.<event>`, `source` `/signalbox/workflows/<workflowId>` (optionally prefixed with
 * the deployment's name), `subject` the instance id, `id` the event's stable id, and `data` with only the
 * context keys the subscription includes. The SDK (with its JSON Schema validator) is loaded on the first
 * event built, not when the app loads: it would add about 0.1 s to every cold start, events or not.
 */
import type { CloudEvent } from 'cloudevents';
import type { JsonObject } from '../model/json';
import type { LifecycleEventData, LifecycleEventRecord } from '../decide/lifecycle-events';
import type { Subscription } from '../definition/subscriptions';

export const CLOUD_EVENT_TYPE_PREFIX = 'io.signalbox.instance.';

/** Task events are `io.signalbox.task.<what>` (`taskCreated` → `io.signalbox.task.created`); the rest `io.signalbox.instance.<event>`. */
export function cloudEventTypeOf(type: LifecycleEventRecord['type']): string {
  if (type.startsWith('task')) return `io.signalbox.task.${type.slice('task'.length).toLowerCase()}`;
  return `${CLOUD_EVENT_TYPE_PREFIX}${type}`;
}

let sdk: typeof import('cloudevents') | undefined;
function cloudevents(): typeof import('cloudevents') {
  return (sdk ??= require('cloudevents') as typeof import('cloudevents'));
}

export function eventSource(workflowId: string, sourcePrefix = ''): string {
  return `${sourcePrefix.replace(/\/+$/, '')}/signalbox/workflows/${workflowId}`;
}

/** The event `subscription` receives (its own context keys only). */
export function toCloudEvent(record: LifecycleEventRecord, subscription: Pick<Subscription, 'contextItemsToInclude'>, sourcePrefix?: string): CloudEvent<LifecycleEventData> {
  const context: JsonObject = {};
  for (const key of subscription.contextItemsToInclude ?? []) if (Object.hasOwn(record.data.context, key)) context[key] = record.data.context[key]!;
  return new (cloudevents().CloudEvent)<LifecycleEventData>({
    specversion: '1.0',
    id: record.id,
    type: cloudEventTypeOf(record.type),
    source: eventSource(record.data.workflowId, sourcePrefix),
    subject: record.data.instanceId,
    time: record.time,
    datacontenttype: 'application/json',
    data: { ...record.data, context },
  });
}

/** Structured mode: `content-type: application/cloudevents+json` and the whole event as the body. */
export function structuredMessage(event: CloudEvent<LifecycleEventData>): { headers: Record<string, string>; body: string } {
  const message = cloudevents().HTTP.structured(event);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) headers[name] = String(value);
  return { headers, body: String(message.body) };
}
