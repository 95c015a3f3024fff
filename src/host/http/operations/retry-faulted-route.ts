/**
 * @module `POST /api/operations/{operationId}/retry-faulted`: one bulk `retry` of every instance a
 * trigger's operation faulted (those whose fault still names the trigger), the bulk-operation pattern of
 * `POST /api/instances/bulk` with `faultTriggerId` in the filter.
 */
import { z } from 'zod';
import { BulkAction } from '../../../engine/decide';
import { ConflictError, InstanceStatus, NotFoundError, TriggerOutcome } from '../../../engine/model';
import { OperationKind, operationKind } from '../../../engine/operations';
import { Role } from '../access';
import { acceptedHeaders, acceptedOperationSchema, finishedOperationHeaders, operationSchema } from '../api-schemas';
import { preferWaitHeaders } from '../prefer-wait';
import { defineRoute } from '../route';
import { actorOf, type RouteDefinition } from '../types';
import { submittedOperation, withResults } from './operation-routes';

const operationPath = z.object({ operationId: z.string() });
const retryFaultedQuery = z.object({
  workflowId: z.string().min(1).max(128).optional().meta({
    description:
      "The workflow whose faulted instances to retry. @default the workflow of the operation's first faulted instance (a trigger reaches instances of any workflow interested in its subjects: name the others one by one).",
  }),
});

export const retryFaultedRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'retryOperationFaults',
    methods: ['POST'],
    route: 'operations/{operationId}/retry-faulted',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: "Retry every instance a trigger's operation faulted",
      description:
        "A bulk `retry` (POST /api/instances/bulk with `action: retry` and `filter.faultTriggerId` the operation's trigger): each instance of the workflow still faulted by this trigger has it applied again, exactly once. " +
        'Instances recovered, retried or faulted by another trigger since are `skipped`. Takes no body.',
      tags: ['operations'],
      path: operationPath,
      query: retryFaultedQuery,
      headers: preferWaitHeaders,
      responses: {
        200: { description: 'Only with `Prefer: wait`: the bulk retry finished within the wait.', body: operationSchema, headers: finishedOperationHeaders },
        202: { description: 'Accepted: the bulk retry; poll `statusUrl` until it answers 200.', body: acceptedOperationSchema, headers: acceptedHeaders },
        404: 'No such operation, or no such workflow.',
        409: "Nothing to retry, and `detail` says why: the operation is not a trigger's (its faults came from recoveries, which have no trigger), or none of its instances faulted.",
        429: 'The tenant has as many operations running as its quota allows: nothing was recorded; send it again after `Retry-After` seconds.',
      },
    },
    async handle({ params: { operationId }, query, request }, services) {
      const operation = await services.operations.get(operationId);
      if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
      if (operation.kind !== undefined && operationKind(operation) !== OperationKind.trigger) {
        throw new ConflictError(`Operation "${operationId}" is a ${operation.kind}, not a trigger's: faults it caused came from recoveries, which have no trigger to retry; recover them instead`);
      }
      const triggerId = operation.kind === undefined || operation.kind === OperationKind.trigger ? operation.triggerId : operationId;
      let workflowId = query.workflowId;
      if (workflowId === undefined) {
        const faulted = (await withResults(services.operations, operation)).instances.find((result) => result.outcome === TriggerOutcome.faulted);
        if (!faulted) throw new ConflictError(`Operation "${operationId}" faulted no instance (among its first results): there is nothing to retry`);
        workflowId = (await services.engine.getInstance(faulted.instanceId)).workflowId;
      }
      const bulk = await services.engine.migrationsAndBulkActions.parseBulk({ action: BulkAction.retry, filter: { workflowId, status: InstanceStatus.faulted, faultTriggerId: triggerId } });
      const refused = await services.quotas?.admitOperation();
      if (refused) return refused;
      return submittedOperation(request, services, await services.triggers.submitWork({ bulk: { ...bulk, actor: actorOf(request) } }));
    },
  }),
];
