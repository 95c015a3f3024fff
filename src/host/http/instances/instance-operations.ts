/** @module Operating instances: suspend and resume, deletion, retry of a fault, and bulk actions over a filter (an operation). */
import { z } from 'zod';
import { BulkAction, bulkRequestSchema, faultRetryRefusal, matchesSelection, type BulkRequest } from '../../../engine/decide';
import type { Actor, StoredInstance } from '../../../engine/model';
import { ConflictError, InstanceStatus } from '../../../engine/model';
import { Role } from '../access';
import { acceptedHeaders, acceptedOperationSchema, bulkDryRunSchema, etagHeaders, finishedOperationHeaders, instanceSchema, operationSchema } from '../api-schemas';
import { acceptedOperation, submittedOperation } from '../operations/operation-routes';
import { preferWaitHeaders } from '../prefer-wait';
import { instanceBody } from '../representations';
import { defineRoute } from '../route';
import { actorOf, type ApiRequest, type ApiServices, type RouteDefinition } from '../types';

const forceShape = { force: z.enum(['true', 'false']).optional().meta({ description: 'Delete a waiting or initializing instance too.' }) };
const forceQuery = z.object(forceShape);
const instancePath = z.object({ instanceId: z.string() });
const noQuery = z.object({});
const accepted = { description: 'Accepted: poll `statusUrl` until it answers 200.', body: acceptedOperationSchema, headers: acceptedHeaders };
const instanceAnswer = (description: string) => ({ description, body: instanceSchema, headers: etagHeaders });

/**
 * How many instances a bulk filter matches now (the guard of a bulk delete): the instances of the workflow
 * (in the state, with the status), paged through, each checked against the whole filter as the operation
 * will check it.
 */
async function countMatching(engine: ApiServices['engine'], filter: BulkRequest['filter']): Promise<number> {
  let matched = 0;
  let continuationToken: string | undefined;
  do {
    const page = await engine.listInstances(
      { workflowId: filter.workflowId, ...(filter.stateId !== undefined ? { stateId: filter.stateId } : {}), ...(filter.status !== undefined ? { status: filter.status } : {}) },
      { maxPageSize: 1000, ...(continuationToken ? { continuationToken } : {}) },
    );
    matched += page.items.filter((instance) => matchesSelection(instance, filter)).length;
    continuationToken = page.continuationToken;
  } while (continuationToken);
  return matched;
}

/** Suspend and resume: no query, no body (an empty one is tolerated), 200 with the instance and its ETag. */
function changeStatus(change: (engine: ApiServices['engine'], instanceId: string, actor: Actor) => Promise<StoredInstance>) {
  return async ({ params, request }: { params: { instanceId: string }; request: ApiRequest }, { engine }: ApiServices) => {
    const instance = await change(engine, params.instanceId, actorOf(request));
    return { status: 200, headers: { etag: instance.etag }, body: instanceBody(instance) };
  };
}

export const instanceOperationRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'deleteInstance',
    methods: ['DELETE'],
    route: 'instances/{instanceId}',
    authLevel: 'function',
    role: Role.admin,
    contract: {
      summary: 'Delete an instance with its history',
      description: 'Removes the instance, its history, outbox rows, interest index rows and lease.',
      tags: ['instances'],
      path: instancePath,
      query: forceQuery,
      responses: { 204: { description: 'Deleted.' }, 404: 'No such instance.', 409: 'The instance is waiting or initializing (use force=true).' },
    },
    async handle({ params, query }, { engine }) {
      await engine.deleteInstance(params.instanceId, { force: query.force === 'true' });
      return { status: 204 };
    },
  }),
  defineRoute({
    name: 'suspendInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/suspend',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Suspend a waiting instance',
      description: 'A suspended instance takes no triggers (`notActive`) until resumed. Takes no body.',
      tags: ['instances'],
      path: instancePath,
      query: noQuery,
      responses: { 200: instanceAnswer('The instance, now `suspended`.'), 404: 'No such instance.', 409: 'The instance is not waiting.' },
    },
    handle: changeStatus((engine, instanceId, actor) => engine.suspend(instanceId, { actor })),
  }),
  defineRoute({
    name: 'resumeInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/resume',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Resume a suspended instance',
      description: 'Takes no body.',
      tags: ['instances'],
      path: instancePath,
      query: noQuery,
      responses: { 200: instanceAnswer('The instance, `waiting` again.'), 404: 'No such instance.', 409: 'The instance is not suspended.' },
    },
    handle: changeStatus((engine, instanceId, actor) => engine.resume(instanceId, { actor })),
  }),
  defineRoute({
    name: 'retryInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/retry',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Retry a faulted instance: apply the trigger that faulted it again, exactly once',
      description:
        'The trigger whose application faulted the instance (`fault.triggerId`) is applied again, under its own id, to the instance as that trigger found it (its state, context and timers), through the normal path (history, events, traces), as a bulk `retry` operation of this one instance. ' +
        'It applies once: a second retry, or a late redelivery of the original, changes nothing. The trigger keeps its sender (`actor`); the history entry names who retried it (`retriedBy`). ' +
        'Takes no body. With `Prefer: wait=<seconds>` the answer waits up to that long (at most 60) for the operation to finish.',
      tags: ['instances'],
      path: instancePath,
      query: noQuery,
      headers: preferWaitHeaders,
      responses: {
        200: {
          description: 'Only with `Prefer: wait`: the operation finished within the wait; its `instances[0]` says what the trigger did.',
          body: operationSchema,
          headers: finishedOperationHeaders,
        },
        202: accepted,
        404: 'No such instance.',
        409: 'The instance cannot be retried, and `detail` says why: it is not faulted, or its fault came from its creation or a recovery (recover it instead), or it was migrated since.',
        429: 'The tenant has as many operations running as its quota allows: nothing was recorded; send it again after `Retry-After` seconds.',
      },
    },
    async handle({ params, request }, services) {
      const instance = await services.engine.getInstance(params.instanceId);
      const definition = (await services.engine.getWorkflow(instance.workflowId, instance.workflowVersion)).definition;
      // Refused now, naming why, rather than as an operation whose one result is a conflict (checked again under the lease).
      const refusal = faultRetryRefusal(definition, instance);
      if (refusal) throw new ConflictError(refusal);
      const refused = await services.quotas?.admitOperation();
      if (refused) return refused;
      const filter = { workflowId: instance.workflowId, subject: instance.id, status: InstanceStatus.faulted, faultTriggerId: instance.faultedTrigger!.trigger.id };
      return submittedOperation(request, services, await services.triggers.submitWork({ bulk: { action: BulkAction.retry, filter, actor: actorOf(request) } }));
    },
  }),
  defineRoute({
    name: 'bulkInstances',
    methods: ['POST'],
    route: 'instances/bulk',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Act on every instance a filter matches',
      description:
        'cancel, recover (to `stateId`), suspend, resume or delete, each instance under its lease; the filter is checked again for each. `dryRun: true` answers 200 with how many instances the filter matches and changes nothing; a delete must name that number as `expectedCount`, and is refused (409) when the filter matches another.',
      tags: ['operations'],
      query: noQuery,
      body: bulkRequestSchema,
      responses: {
        200: { description: 'The dry run: how many instances the filter matches now.', body: bulkDryRunSchema },
        202: accepted,
        400: 'The request is invalid (a workflow, or a state in no version of it, that does not exist; a delete without `expectedCount`; a recover without `stateId`).',
        409: 'A delete whose `expectedCount` is not the number of instances the filter matches: nothing is deleted.',
        429: 'The tenant has as many operations running as its quota allows: nothing was recorded; send it again after `Retry-After` seconds.',
      },
    },
    invalidBody: 'The bulk request is invalid',
    async handle({ body, request }, { engine, triggers, quotas }) {
      // Checked against the workflows too (a misspelt workflow or state is a 400, dry run or not).
      const bulk = await engine.migrationsAndBulkActions.parseBulk(body);
      const { dryRun, expectedCount } = body;
      if (dryRun) return { status: 200, body: { action: bulk.action, filter: bulk.filter, matched: await countMatching(engine, bulk.filter) } };
      if (bulk.action === 'delete') {
        const matched = await countMatching(engine, bulk.filter);
        if (matched !== expectedCount) {
          throw new ConflictError(
            `expectedCount: the filter matches ${matched} instance${matched === 1 ? '' : 's'}, not ${expectedCount}; nothing was deleted (a request with dryRun: true tells the number)`,
          );
        }
      }
      const refused = await quotas?.admitOperation();
      if (refused) return refused;
      return acceptedOperation(await triggers.submitWork({ bulk: { ...bulk, actor: actorOf(request) } }));
    },
  }),
];
