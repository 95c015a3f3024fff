/**
 * @module Warnings about URLs the host's outbound client would refuse (a host not on the allow-list, a
 * scheme it does not send): a subscription whose events would all be dead-lettered, a step whose every
 * call would fault. Unlike the rest of the analysis this depends on the host's configuration, so it runs
 * where the client is known (PUT and POST of a workflow), and says nothing when the client cannot tell.
 */
import type { WorkflowDefinition } from '../definition/definition';
import type { ExternalServiceClient } from '../steps/outbound-port';
import { formatPath } from '../model/validation';
import { WarningCode, type DefinitionWarning } from './analyze-definition';

export interface OutboundClients {
  /** The client subscriptions are delivered through. */
  readonly events: Pick<ExternalServiceClient, 'refusal'>;
  /** The client of `invokeExternalService` steps. */
  readonly steps: Pick<ExternalServiceClient, 'refusal'>;
}

/** Every subscription URL and `invokeExternalService` URL the clients would refuse, in definition order. */
export function outboundHostWarnings(definition: WorkflowDefinition, clients: OutboundClients): DefinitionWarning[] {
  const warnings: DefinitionWarning[] = [];
  (definition.subscriptions ?? []).forEach((subscription, index) => {
    const refusal = clients.events.refusal?.(subscription.url);
    if (refusal !== undefined) {
      warnings.push({
        path: formatPath(['subscriptions', index, 'url']),
        code: WarningCode.hostNotAllowed,
        message: `subscription "${subscription.id}" would have every event dead-lettered: ${refusal}`,
      });
    }
  });
  // Steps sit in states' entry and exit actions, transitions' conditions and actions, nested in all/any/not.
  const visit = (value: unknown, path: PropertyKey[]): void => {
    if (Array.isArray(value)) return value.forEach((item, index) => visit(item, [...path, index]));
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if (record.type === 'invokeExternalService' && typeof record.url === 'string') {
      const refusal = clients.steps.refusal?.(record.url);
      if (refusal !== undefined) warnings.push({ path: formatPath([...path, 'url']), code: WarningCode.hostNotAllowed, message: `every call of this step would fault: ${refusal}` });
    }
    for (const [key, item] of Object.entries(record)) visit(item, [...path, key]);
  };
  visit(definition.states, ['states']);
  return warnings;
}
