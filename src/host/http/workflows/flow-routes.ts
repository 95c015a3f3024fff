/**
 * @module Flow control of one key of a workflow (the engine's admission/flow-keys.ts): what runs and waits
 * under its `concurrency` policy, and the admin's run-time override of its limit, audited.
 */
import { z } from 'zod';
import { MAX_CONCURRENCY_LIMIT } from '../../../engine/definition';
import { NotFoundError } from '../../../engine/model';
import type { FlowKeys } from '../../../engine';
import { Role } from '../access';
import { defineRoute } from '../route';
import { actorOf, type ApiServices, type RouteDefinition } from '../types';

const flowAuditEntrySchema = z.object({
  key: z.string(),
  by: z.string(),
  at: z.string(),
  old: z.number().int().nullable().meta({ description: 'The limit before: the override, else the definition.' }),
  new: z.number().int().nullable().meta({ description: "The limit after; null: the override was removed (the definition's applies)." }),
  tenantId: z.string().optional(),
});

export const flowKeySchema = z
  .object({
    workflowId: z.string(),
    key: z.string(),
    limit: z.number().int().nullable().meta({ description: "The limit in force: the override's, else the definition's; null without a concurrency policy." }),
    definedLimit: z.number().int().nullable(),
    override: z.object({ limit: z.number().int(), by: z.string(), at: z.string() }).optional(),
    running: z.array(z.object({ instanceId: z.string(), triggerId: z.string(), since: z.string(), expiresAt: z.string() })),
    queued: z
      .array(z.object({ instanceId: z.string(), triggerId: z.string(), priority: z.number().int(), arrivedAt: z.string() }))
      .meta({ description: 'In admission order: higher priority first, then arrival.' }),
    nextRelease: z
      .string()
      .nullable()
      .meta({ description: 'While triggers wait: `now` when a slot is free, else when one frees at the latest (the earliest expiry of a running slot). Null when nothing waits.' }),
    audit: z.array(flowAuditEntrySchema).meta({ description: 'The newest limit overrides of this key, newest first.' }),
    capacity: z
      .array(
        z.object({
          stateId: z.string(),
          limit: z.number().int(),
          members: z.array(z.object({ instanceId: z.string(), since: z.string() })),
          queued: z.array(z.object({ instanceId: z.string(), triggerId: z.string(), priority: z.number().int(), arrivedAt: z.string(), deadline: z.string() })),
        }),
      )
      .meta({
        description:
          "Per state with `capacity`: the instances counted in it under this key (as last recorded; a full check reconciles them with the instances' own state) and the triggers waiting for room, in admission order.",
      }),
  })
  .meta({ id: 'FlowKey' });

const limitOverrideSchema = z.strictObject({
  limit: z.number().int().min(1).max(MAX_CONCURRENCY_LIMIT).nullable().meta({ description: "The key's limit from now on; null removes the override (the definition's limit applies again)." }),
});

const flowPath = z.object({ workflowId: z.string(), key: z.string().min(1).max(1024) });

function flowOf(engine: ApiServices['engine']): FlowKeys {
  if (!engine.flow) throw new NotFoundError('Flow control is not available on this host (no flow store)');
  return engine.flow;
}

export const flowRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'getFlowKey',
    methods: ['GET'],
    route: 'flow/{workflowId}/keys/{key}',
    role: Role.reader,
    authLevel: 'function',
    contract: {
      summary: "One key's flow control: what runs, what waits, when the next slot frees",
      description:
        "Under the workflow's `flow.concurrency` policy: the applications holding a slot of the key, the triggers waiting for one (in admission order), the limit in force (an override, else the definition's) and the newest overrides. The key is as the policy computes it (`customer:42`), URL-encoded.",
      tags: ['workflows'],
      path: flowPath,
      responses: { 200: { description: 'The key.', body: flowKeySchema }, 404: 'No such workflow.' },
    },
    async handle({ params }, { engine }) {
      return { status: 200, body: await flowOf(engine).view(params.workflowId, params.key) };
    },
  }),
  defineRoute({
    name: 'putFlowKeyLimit',
    methods: ['PUT'],
    route: 'flow/{workflowId}/keys/{key}/limit',
    role: Role.admin,
    authLevel: 'function',
    contract: {
      summary: "Override one key's concurrency limit at run time",
      description: "Takes effect at the key's next admission, on every host; no deploy. Audited: who, when, the limit before and after (listed with the key). `limit: null` removes the override.",
      tags: ['workflows'],
      path: flowPath,
      body: limitOverrideSchema,
      responses: { 200: { description: 'The key with its new limit.', body: flowKeySchema }, 400: 'The limit is invalid, or the workflow has no concurrency policy.', 404: 'No such workflow.' },
    },
    invalidBody: 'The limit override is invalid',
    async handle({ params, body, request }, { engine }) {
      const actor = actorOf(request);
      const tenantId = request.tenantId;
      return { status: 200, body: await flowOf(engine).setLimit(params.workflowId, params.key, body.limit, actor, { tenantId }) };
    },
  }),
];
