/** @module "Why is it stuck?" for a workflow: its instances that are not final, counted per class and state (the engine's waiting-service.ts). */
import { z } from 'zod';
import { Role } from '../access';
import { waitingSummarySchema } from '../instances/instance-waiting';
import { defineRoute } from '../route';
import type { RouteDefinition } from '../types';

export const workflowWaitingRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'getWorkflowWaiting',
    methods: ['GET'],
    route: 'workflows/{workflowId}/waiting',
    role: Role.reader,
    authLevel: 'function',
    contract: {
      summary: "Why a workflow's instances are not moving, counted",
      description:
        'Instances that are not final, counted per primary class and state, with the oldest of each group, the trigger names it waits for and fault causes grouped. Reads instance rows only, page by page up to a bound (`truncated` past it): leases and children are looked at per instance (`GET /instances/{id}/waiting`).',
      tags: ['workflows'],
      path: z.object({ workflowId: z.string() }),
      responses: { 200: { description: 'The counts.', body: waitingSummarySchema }, 404: 'No such workflow.' },
    },
    async handle({ params }, { engine }) {
      return { status: 200, body: await engine.waitingSummary(params.workflowId) };
    },
  }),
];
