/**
 * @module Routes that explain workflows without changing anything: definition analysis (validate),
 * Mermaid diagrams, and the triggers an instance can act on now. The engine's pure analysis decides;
 * these routes only load what it needs.
 */
import { grants, Role } from './access';
import type { Actor } from '../../engine/model';
import { judgeActors } from '../../engine/definition';
import { problem } from '../problem';
import { z } from 'zod';
import { availableTriggers, buildDefinitionGraph, checkDefinition, mermaidStateDiagram } from '../../engine/analysis';
import { ValidationError } from '../../engine/model';
import { availableTriggersSchema, definitionCheckSchema, workflowDefinitionReference } from './api-schemas';
import { defineRoute } from './route';
import { actorOf, type RouteDefinition } from './types';

const commaList = z
  .string()
  .max(4096)
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );
const availableQuery = z.object({
  actor: z
    .string()
    .regex(/^[A-Za-z0-9._:@-]{1,256}$/, 'must be a user id')
    .optional()
    .meta({ description: 'Answer for this user id instead of the caller (needs Signalbox.Operator).' }),
  roles: commaList.optional().meta({ description: "With `actor`: the user's app roles, comma-separated." }),
  groups: commaList.optional().meta({ description: "With `actor`: the user's group ids, comma-separated." }),
});

const diagramQuery = z.object({
  version: z.coerce.number().int().min(1).optional().meta({ description: "The version to draw; the latest (or the instance's) by default." }),
  instanceId: z.string().min(1).max(128).optional().meta({ description: "Highlight this instance's current state (drawn on its version unless `version` says otherwise)." }),
});

export const explainRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'validateWorkflow',
    methods: ['POST'],
    route: 'workflows/validate',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Validate and analyse a definition, storing nothing',
      description: 'An invalid definition is an answer here (200, `valid: false`, every problem by JSON path), not a failed request. Warnings need a valid definition.',
      tags: ['workflows'],
      body: workflowDefinitionReference,
      withoutStorage: true,
      responses: { 200: { description: 'The verdict.', body: definitionCheckSchema } },
    },
    async handle({ body }, { engine }) {
      // An invalid definition is an answer here, not a failed request: 200 with its errors.
      return { status: 200, body: checkDefinition(body, engine.options.registry) };
    },
  }),
  defineRoute({
    name: 'getWorkflowDiagram',
    methods: ['GET'],
    route: 'workflows/{workflowId}/diagram',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Draw a workflow as a Mermaid state diagram',
      description: 'A Mermaid `stateDiagram-v2`: every state by its display name, the initial and final states, every transition labelled with its trigger names or its timer.',
      tags: ['workflows'],
      path: z.object({ workflowId: z.string() }),
      query: diagramQuery,
      responses: {
        200: { description: 'The diagram.', body: z.string(), contentType: 'text/plain; charset=utf-8' },
        400: 'An unknown or malformed query parameter, or the instance belongs to another workflow.',
        404: 'No such workflow, version or instance.',
      },
    },
    async handle({ params: { workflowId }, query: { version, instanceId } }, { engine }) {
      const instance = instanceId === undefined ? undefined : await engine.getInstance(instanceId);
      if (instance && instance.workflowId !== workflowId) {
        throw new ValidationError('The query string is invalid', [{ path: 'instanceId', message: `instance "${instance.id}" belongs to workflow "${instance.workflowId}", not "${workflowId}"` }]);
      }
      // An instance is drawn on the version it is pinned to unless another version is asked for.
      const workflow = await engine.getWorkflow(workflowId, version ?? instance?.workflowVersion);
      const text = mermaidStateDiagram(buildDefinitionGraph(workflow.definition), { highlightStateId: instance?.stateId });
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, text };
    },
  }),
  defineRoute({
    name: 'getAvailableTriggers',
    methods: ['GET'],
    route: 'instances/{instanceId}/available-triggers',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'The triggers an instance can act on now, for the caller',
      description:
        "For the current state: each transition with the trigger names it answers, the parameters it tests, its target and its timer; only those the caller may take (a transition's `actors` rule, evaluated), the others in `refused` with why. `?actor=` asks for another user (Signalbox.Operator). Conditions on the context are not evaluated.",
      tags: ['instances'],
      path: z.object({ instanceId: z.string() }),
      query: availableQuery,
      responses: { 200: { description: 'Its status and the transitions of its state.', body: availableTriggersSchema }, 403: '`?actor=` without Signalbox.Operator.', 404: 'No such instance.' },
    },
    async handle({ params, query, request }, { engine }) {
      const caller = actorOf(request);
      if (query.actor !== undefined && !grants(caller.roles, Role.operator)) return problem(403, 'Forbidden', `?actor= needs the role ${Role.operator}`);
      const actor: Actor = query.actor !== undefined ? { id: query.actor, name: query.actor, roles: query.roles ?? [], ...(query.groups ? { groups: query.groups } : {}), via: 'token' } : caller;
      const instance = await engine.getInstance(params.instanceId);
      const { definition } = await engine.getWorkflow(instance.workflowId, instance.workflowVersion);
      const available = availableTriggers(definition, instance);
      const transitions = definition.states[instance.stateId]?.transitions ?? [];
      const scope = { trigger: null, context: instance.context, instance: { id: instance.id, workflowId: instance.workflowId, stateId: instance.stateId, status: instance.status } };
      const items = [];
      const refused = [];
      for (const item of available.items) {
        const rule = transitions.find((transition) => transition.id === item.transitionId)?.actors;
        const verdict = rule ? await judgeActors(rule, actor, scope) : undefined;
        if (!verdict || verdict.allowed) items.push(item);
        else refused.push({ transitionId: item.transitionId, reason: verdict.detail });
      }
      return { status: 200, body: { ...available, actor: actor.id, items, ...(refused.length ? { refused } : {}) } };
    },
  }),
];
