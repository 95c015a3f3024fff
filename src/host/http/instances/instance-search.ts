/**
 * @module Finding instances by business data: the schemas of `GET /api/instances?filter=...` (the
 * listing's search parameters, instance-routes.ts) and the counts route `GET /api/instance-counts`
 * (not under /api/instances/, where `count` could be an instance id).
 */
import { z } from 'zod';
import { Role } from '../access';
import { defineRoute } from '../route';
import type { RouteDefinition } from '../types';

export const filterParameter = z
  .string()
  .max(2048)
  .meta({ description: "A filter over the workflow's search fields (README, \"Finding instances\"): `amount > 1000 and stateId = 'waiting-for-approval'`. Needs `workflowId`." });

export const searchQueryShape = {
  filter: filterParameter.optional(),
  orderBy: z
    .string()
    .max(128)
    .optional()
    .meta({ description: '`field` or `field asc|desc` (needs `workflowId`). Ordered by the index range read when it can be, else in memory (at most 5,000 matches).' }),
  explain: z.enum(['true', 'false']).optional().meta({ description: '`true`: the answer carries `explain`, the plan and the storage requests it made (needs `workflowId`).' }),
};

export const searchExplanationSchema = z
  .object({
    index: z.object({ field: z.string(), condition: z.string(), from: z.string(), to: z.string() }).meta({ description: 'The one range of the search index read, and the condition it answers.' }),
    filter: z.string().nullable().meta({ description: 'What is checked on every instance read.' }),
    order: z.string(),
    storageRequests: z.object({ indexPages: z.number().int(), indexRows: z.number().int(), instanceReads: z.number().int(), total: z.number().int() }),
    counted: z.string().optional().meta({ description: "A count's: from the index rows (an instance read only when its rows conflict), or by reading every instance the range names." }),
  })
  .meta({ id: 'SearchExplanation' });

const countQuery = z.object({
  workflowId: z.string().min(1).max(128),
  filter: filterParameter.optional(),
  groupBy: z.string().min(1).max(64).optional().meta({ description: '`stateId`, `status`, or a keyword, string or boolean index of the workflow.' }),
  explain: searchQueryShape.explain,
});

const countSchema = z
  .object({
    count: z.number().int().min(0),
    countedFrom: z.enum(['index', 'instances']).meta({
      description:
        '`index`: counted from the index rows, which also count an instance being deleted (until its deletion removes its rows) and a creation a crash stopped after writing its rows (until a search meets them, five minutes on); `instances`: every instance counted was read and checked.',
    }),
    groups: z
      .array(z.object({ key: z.union([z.string(), z.number(), z.boolean()]).nullable(), count: z.number().int().min(0) }))
      .optional()
      .meta({ description: 'With `groupBy`: the count per value, largest first (`null`: instances without a value; a keyword counts once per value it holds).' }),
    explain: searchExplanationSchema.optional(),
  })
  .meta({ id: 'InstanceCounts' });

export const searchRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'countInstances',
    methods: ['GET'],
    route: 'instance-counts',
    role: Role.reader,
    authLevel: 'function',
    contract: {
      summary: 'Count instances of a workflow, optionally per state, status or keyword',
      tags: ['instances'],
      query: countQuery,
      responses: {
        200: { description: 'The count, and the count per group with `groupBy`.', body: countSchema },
        400: 'The filter or groupBy is invalid (the problem names the position).',
        404: 'No such workflow.',
      },
    },
    async handle({ query }, { engine }) {
      const { explain, ...request } = query;
      const result = await engine.countInstances({
        workflowId: request.workflowId,
        ...(request.filter !== undefined ? { filter: request.filter } : {}),
        ...(request.groupBy !== undefined ? { groupBy: request.groupBy } : {}),
      });
      return {
        status: 200,
        body: { count: result.count, countedFrom: result.countedFrom, ...(result.groups ? { groups: result.groups } : {}), ...(explain === 'true' ? { explain: result.explain } : {}) },
      };
    },
  }),
];
