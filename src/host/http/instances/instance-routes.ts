/** @module /api/instances: create, read, query, history, recover, cancel, and instance-scoped triggers. */
import { Role } from '../access';
import { z } from 'zod';
import { createInstanceInputSchema } from '../../../engine/decide';
import { instanceStatusSchema } from '../../../engine/model';
import type { StoredInstance } from '../../../engine/model';
import { parseTrigger, triggerFieldsSchema } from '../../../engine/model';
import { contextPatchSchema } from '../../../engine/model';
import { actorOf, principalOf } from '../types';
import { dryRunQuerySchema, createdHeaders, etagHeaders, historyEntrySchema, ifNoneMatchHeaders, instanceSchema, offerListSchema, pageSchemaOf } from '../api-schemas';
import { pageQuerySchema } from '../query';
import { instanceBody, instanceUrl, pageBody } from '../representations';
import { preferWaitHeaders } from '../prefer-wait';
import { submittedResponses, submittedTrigger } from '../operations/operation-routes';
import { defineRoute } from '../route';
import { searchExplanationSchema, searchQueryShape } from './instance-search';
import { ValidationError } from '../../../engine/model';
import type { RouteDefinition } from '../types';
import { historyEntryBody } from './instance-time-travel';

function instanceResponse(status: number, instance: StoredInstance, withLocation = false) {
  return {
    status,
    headers: { etag: instance.etag, ...(withLocation ? { location: instanceUrl(instance.id) } : {}) },
    body: instanceBody(instance),
  };
}

const recoverBodySchema = z.strictObject({
  stateId: z.string().min(1).max(128).meta({ description: 'The state whose entry conditions and actions run again.' }),
  context: contextPatchSchema.optional().meta({
    description:
      'A JSON Merge Patch (RFC 7386) applied to the context before the state is entered (`null` removes a key), to repair the data the instance faulted on. Recorded in the history entry with who made it. At most 64 KiB.',
  }),
});
const instancePath = z.object({ instanceId: z.string() });
const listInstancesQuery = z.object({
  workflowId: z.string().min(1).max(128).optional(),
  parentId: z.string().min(1).max(128).optional().meta({ description: 'Only children of this instance (started by its `startInstance` actions).' }),
  stateId: z.string().min(1).max(128).optional(),
  status: instanceStatusSchema.optional(),
  subject: z.string().min(1).max(1024).optional().meta({ description: 'Only instances interested in this subject (an instance id, an interest, or a trigger name a transition answers).' }),
  ...searchQueryShape,
  ...pageQuerySchema,
});
const historyQuery = z.object(pageQuerySchema);
/** The instance is the subject: a body naming subjects is refused (the dispatcher names the field) rather than silently overridden. */
const instanceTriggerBody = z.strictObject(triggerFieldsSchema.omit({ subjects: true }).shape, {
  error: (issue) => (issue.code === 'unrecognized_keys' && issue.keys.includes('subjects') ? 'subjects are not allowed here: the instance id is the subject' : undefined),
});
const instancePage = pageSchemaOf(instanceSchema, 'InstancePage').extend({
  explain: searchExplanationSchema.optional().meta({ description: 'With `explain=true`: the plan and its storage requests.' }),
});

export const instanceRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'createInstance',
    methods: ['POST'],
    route: 'instances',
    authLevel: 'function',
    role: Role.sender,
    bodyLimit: 'instanceCreation',
    contract: {
      summary: 'Start an instance of a workflow',
      tags: ['instances'],
      body: createInstanceInputSchema,
      responses: {
        201: { description: 'Created, in the initial state (or `faulted` if its entry failed).', body: instanceSchema, headers: createdHeaders },
        404: 'No such workflow.',
        200: {
          description: "The workflow's `flow.unique` key is held by an instance that has not ended, and the workflow says `onConflict: existing`: that instance.",
          body: instanceSchema,
          headers: etagHeaders,
        },
        409: 'An instance with this id exists, or the unique key (`flow.unique`, `uniqueBusinessKey`) is held by one that has not ended (`existingInstanceId` names it).',
      },
    },
    invalidBody: 'The instance request is invalid',
    async handle({ body, request }, { engine, quotas }) {
      const refused = await quotas?.admitInstance();
      if (refused) return refused;
      // Its follow-up work (children, raised triggers, events) runs after the answer: a workflow that starts children
      // of itself must not hold this request while its causal budget runs out (issue 42).
      const { instance, created } = await engine.createOrFindInstance(body, { actor: actorOf(request), followUp: 'afterAnswer' });
      return created ? instanceResponse(201, instance, true) : instanceResponse(200, instance);
    },
  }),
  defineRoute({
    name: 'getInstance',
    methods: ['GET'],
    route: 'instances/{instanceId}',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Read an instance',
      tags: ['instances'],
      path: instancePath,
      headers: ifNoneMatchHeaders,
      responses: {
        200: { description: 'The instance.', body: instanceSchema, headers: etagHeaders },
        304: { description: 'Not modified: If-None-Match names the current ETag.', headers: etagHeaders },
        404: 'No such instance.',
      },
    },
    async handle({ params }, { engine }) {
      return instanceResponse(200, await engine.getInstance(params.instanceId));
    },
  }),
  defineRoute({
    name: 'listInstances',
    methods: ['GET'],
    route: 'instances',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Find instances',
      tags: ['instances'],
      query: listInstancesQuery,
      responses: { 200: { description: 'A page of instances.', body: instancePage } },
    },
    async handle({ query }, { engine }) {
      const { workflowId, stateId, status, subject, parentId, filter, orderBy, explain, ...page } = query;
      if (filter !== undefined || orderBy !== undefined || explain !== undefined) {
        // A search: the other narrowing parameters are conditions of the filter language instead.
        const extra = Object.entries({ stateId, status, subject, parentId }).find(([, value]) => value !== undefined)?.[0];
        if (workflowId === undefined || extra !== undefined) {
          const path = workflowId === undefined ? 'workflowId' : extra!;
          const message = workflowId === undefined ? 'is required with filter, orderBy or explain' : `cannot be combined with filter, orderBy or explain: write it in the filter`;
          throw new ValidationError(`${path} ${message}`, [{ path, message }]);
        }
        const found = await engine.searchInstances({ workflowId, ...(filter !== undefined ? { filter } : {}), ...(orderBy !== undefined ? { orderBy } : {}) }, page);
        return { status: 200, body: { ...pageBody(found.items.map(instanceBody), found), ...(explain === 'true' ? { explain: found.explain } : {}) } };
      }
      const narrowing = { workflowId, stateId, status, ...(parentId !== undefined ? { parentId } : {}) };
      const result = subject !== undefined ? await engine.findInstancesBySubject(subject, narrowing, page) : await engine.listInstances(narrowing, page);
      return { status: 200, body: pageBody(result.items.map(instanceBody), result) };
    },
  }),
  defineRoute({
    name: 'getInstanceHistory',
    methods: ['GET'],
    route: 'instances/{instanceId}/history',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: "Read an instance's history, oldest first",
      tags: ['instances'],
      path: instancePath,
      query: historyQuery,
      responses: { 200: { description: 'A page of history entries, oldest first.', body: pageSchemaOf(historyEntrySchema, 'HistoryPage') }, 404: 'No such instance.' },
    },
    async handle({ params, query }, { engine }) {
      const history = await engine.getHistory(params.instanceId, query);
      const items = history.items.map((entry) => historyEntryBody(entry));
      return { status: 200, body: pageBody(items, history) };
    },
  }),
  defineRoute({
    name: 'getInstanceOffers',
    methods: ['GET'],
    route: 'instances/{instanceId}/offers',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Recent triggers offered to an instance that changed nothing',
      description:
        'Newest first, at most 20: each trigger that reached the instance and did nothing to it (no transition, a blocked exit or entry, not active, not interested), with why. ' +
        'Triggers that changed it are in its history, each entry naming its operation.',
      tags: ['instances'],
      path: instancePath,
      responses: { 200: { description: 'The recent offers, newest first.', body: offerListSchema }, 404: 'No such instance.' },
    },
    async handle({ params }, { engine }) {
      return { status: 200, body: { items: await engine.getOffers(params.instanceId) } };
    },
  }),
  defineRoute({
    name: 'sendInstanceTrigger',
    methods: ['POST'],
    route: 'instances/{instanceId}/triggers',
    authLevel: 'function',
    role: Role.sender,
    contract: {
      summary: 'Send a trigger to one instance',
      description:
        'The instance id is the only subject and the instance the only candidate (no other instance is offered it); a body naming `subjects` is refused. With `Prefer: wait=<seconds>` the answer waits up to that long (at most 60) for the operation to finish. ' +
        'With `?dryRun=true`: 200 with what it would do (outcome, trace, context after, actions); nothing is saved, leased or dispatched.',
      tags: ['triggers'],
      path: instancePath,
      query: dryRunQuerySchema,
      headers: preferWaitHeaders,
      body: instanceTriggerBody,
      responses: { ...submittedResponses, 404: 'No such instance.' },
    },
    invalidBody: 'The trigger is invalid',
    async handle({ params: { instanceId }, query, body, request }, services) {
      // Checked again as a whole (the size of a trigger with its subject).
      const trigger = { ...parseTrigger({ ...body, subjects: [instanceId] }, services.newId), actor: actorOf(request) };
      if (query.dryRun === 'true') return { status: 200, body: { instances: [await services.engine.dryRunTrigger(instanceId, trigger)], truncated: false } };
      // Over the rate: refused from memory, before anything is read.
      const overRate = services.quotas?.takeTriggerToken();
      if (overRate) return overRate;
      await services.engine.getInstance(instanceId); // 404 before accepting a trigger for nobody
      const refused = await services.quotas?.admitOperation();
      if (refused) return refused;
      // Addressed to the instance: it is the only candidate (no interest lookup).
      return submittedTrigger(request, services, trigger, { to: { instanceId }, idFromClient: body.id !== undefined });
    },
  }),
  defineRoute({
    name: 'recoverInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/recover',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Recover a faulted instance into a state',
      tags: ['instances'],
      path: instancePath,
      body: recoverBodySchema,
      responses: {
        200: { description: "The instance after the state's entry ran again.", body: instanceSchema, headers: etagHeaders },
        404: 'No such instance.',
        409: 'The instance is not faulted.',
      },
    },
    invalidBody: 'The recovery request is invalid',
    async handle({ params, body: { stateId, context }, request }, { engine }) {
      return instanceResponse(200, await engine.recover(params.instanceId, stateId, { actor: actorOf(request) }, { ...(context ? { contextPatch: context } : {}), by: principalOf(request) }));
    },
  }),
  defineRoute({
    name: 'cancelInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/cancel',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Cancel an instance',
      description: 'Takes no body (an empty JSON body is accepted).',
      tags: ['instances'],
      path: instancePath,
      responses: {
        200: { description: 'The instance, now `cancelled`.', body: instanceSchema, headers: etagHeaders },
        404: 'No such instance.',
        409: 'The instance is already complete or cancelled.',
      },
    },
    async handle({ params, request }, { engine }) {
      return instanceResponse(200, await engine.cancel(params.instanceId, { actor: actorOf(request) }));
    },
  }),
];
