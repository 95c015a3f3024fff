/** @module The triggers an instance can act on now, for the caller or an actor an operator names (the engine's pure analysis decides). */
import { z } from 'zod';
import { availableTriggers } from '../../../engine/analysis';
import { judgeActors } from '../../../engine/definition';
import type { Actor } from '../../../engine/model';
import { problem } from '../../problem';
import { grants, Role } from '../access';
import { availableTriggersSchema } from '../api-schemas';
import { defineRoute } from '../route';
import { actorOf, type RouteDefinition } from '../types';

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

export const availableTriggerRoutes: readonly RouteDefinition[] = [
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
