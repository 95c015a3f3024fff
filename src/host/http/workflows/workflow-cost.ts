/**
 * @module What operations cost (decision 0021): a workflow's sum (`GET /workflows/{id}/cost`) and the
 * tenant's (`GET /cost`), per UTC day since `since`, in counts and as an estimate from the price table.
 * Each reads the cost rows of the days asked for: at most one per workflow per day (table-cost-store.ts).
 */
import { z } from 'zod';
import { Role } from '../access';
import { defineRoute } from '../route';
import type { RouteDefinition } from '../types';
import { sumCosts, type OperationCost } from '../../../engine/operations';
import { costEstimateSchema, operationCostSchema } from '../api-schemas';
import { DEFAULT_PRICE_TABLE, estimateCost, type PriceTable } from '../../cost/price-table';
import type { DailyCost } from '../../cost/cost-store';
import { ValidationError } from '../../../engine/model';

/** The longest look back: a year and a day (so "the same day last year" fits), and a bounded read. */
export const MAX_COST_DAYS = 367;
const DEFAULT_COST_DAYS = 30;
const DAY_IN_MS = 86_400_000;

const count = z.number().int().nonnegative();
const pricesSchema = z.object({ currency: z.string(), region: z.string(), takenOn: z.string(), source: z.string() }).meta({ id: 'PriceTableSource' });

const costSumSchema = z.object({ operations: count, cost: operationCostSchema, estimate: costEstimateSchema });
const daySchema = costSumSchema.extend({ day: z.string() });

const workflowCostSchema = costSumSchema
  .extend({ workflowId: z.string(), since: z.string(), days: z.array(daySchema), prices: pricesSchema })
  .meta({ id: 'WorkflowCost', description: "A workflow's operations' cost from `since` on, per UTC day (days without operations left out)." });

const tenantCostSchema = costSumSchema
  .extend({
    since: z.string(),
    days: z.array(daySchema),
    workflows: z.array(costSumSchema.extend({ workflowId: z.string().meta({ description: "`''`: operations that reached no workflow (a trigger that found no instance)." }) })),
    prices: pricesSchema,
  })
  .meta({ id: 'TenantCost', description: "The tenant's operations' cost from `since` on, per UTC day and per workflow." });

const costQuery = z.object({
  since: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'a UTC day, yyyy-mm-dd')
    .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day), 'not a calendar day')
    .optional()
    .meta({ description: `The first UTC day summed (yyyy-mm-dd), at most ${MAX_COST_DAYS} days back. @default ${DEFAULT_COST_DAYS} days ago` }),
});

/** `since` checked against today (the route's clock): a bounded number of days, so a bounded read. */
function sinceDayOf(since: string | undefined, now: Date): { day: string } | { problem: string } {
  const earliest = new Date(now.getTime() - MAX_COST_DAYS * DAY_IN_MS).toISOString().slice(0, 10);
  if (since === undefined) return { day: new Date(now.getTime() - DEFAULT_COST_DAYS * DAY_IN_MS).toISOString().slice(0, 10) };
  if (since < earliest) return { problem: `since: at most ${MAX_COST_DAYS} days back (${earliest} or later)` };
  return { day: since };
}

function summed(rows: readonly DailyCost[], prices: PriceTable) {
  const cost: OperationCost = sumCosts(rows.map((row) => row.cost));
  return { operations: rows.reduce((sum, row) => sum + row.operations, 0), cost, estimate: estimateCost(cost, prices) };
}

function groupedBy(rows: readonly DailyCost[], key: (row: DailyCost) => string): Map<string, DailyCost[]> {
  const groups = new Map<string, DailyCost[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function pricesOf(prices: PriceTable) {
  return { currency: prices.currency, region: prices.region, takenOn: prices.takenOn, source: prices.source };
}

/** A 400 problem naming `since` (problemResponse turns a ValidationError into one). */
function badSince(detail: string): never {
  throw new ValidationError(detail, [{ path: 'since', message: detail }]);
}

export const workflowCostRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'getWorkflowCost',
    methods: ['GET'],
    route: 'workflows/{workflowId}/cost',
    role: Role.reader,
    authLevel: 'function',
    contract: {
      summary: "What a workflow's operations cost",
      description:
        "The counted requests of the operations that reached the workflow's instances, per UTC day from `since` on, and an estimate from the price table (SIGNALBOX_PRICE_TABLE). An operation's cost is added to the day it finished; one that reached several workflows is shared (decision 0021). Reads one row per workflow per day. A deleted workflow's costs stay readable (404 only when there are none and no such workflow).",
      tags: ['workflows'],
      path: z.object({ workflowId: z.string() }),
      query: costQuery,
      responses: { 200: { description: 'The sums.', body: workflowCostSchema }, 400: 'A bad `since`.', 404: 'No such workflow, and no costs recorded under its id since `since`.' },
    },
    async handle({ params, query }, { engine, costs, priceTable = DEFAULT_PRICE_TABLE }) {
      const since = sinceDayOf(query.since, engine.options.clock.now());
      if ('problem' in since) badSince(since.problem);
      const rows = costs ? await costs.list({ sinceDay: since.day, workflowId: params.workflowId }) : [];
      // No costs: 404 unless the workflow exists (one read, only then; throws NotFoundError for an unknown one).
      if (rows.length === 0) await engine.getWorkflow(params.workflowId);
      const days = [...groupedBy(rows, (row) => row.day)].map(([day, group]) => ({ day, ...summed(group, priceTable) }));
      return { status: 200, body: { workflowId: params.workflowId, since: since.day, ...summed(rows, priceTable), days, prices: pricesOf(priceTable) } };
    },
  }),
  defineRoute({
    name: 'getTenantCost',
    methods: ['GET'],
    route: 'cost',
    role: Role.reader,
    authLevel: 'function',
    contract: {
      summary: "What the tenant's operations cost",
      description:
        "Every operation's counted requests per UTC day and per workflow from `since` on (the tenant's own storage: `X-Signalbox-Tenant` picks it), and an estimate from the price table. Reads at most one row per workflow per day.",
      tags: ['operations'],
      query: costQuery,
      responses: { 200: { description: 'The sums.', body: tenantCostSchema }, 400: 'A bad `since`.' },
    },
    async handle({ query }, { engine, costs, priceTable = DEFAULT_PRICE_TABLE }) {
      const since = sinceDayOf(query.since, engine.options.clock.now());
      if ('problem' in since) badSince(since.problem);
      const rows = costs ? await costs.list({ sinceDay: since.day }) : [];
      const days = [...groupedBy(rows, (row) => row.day)].map(([day, group]) => ({ day, ...summed(group, priceTable) }));
      const workflows = [...groupedBy(rows, (row) => row.workflowId)].map(([workflowId, group]) => ({ workflowId, ...summed(group, priceTable) }));
      return { status: 200, body: { since: since.day, ...summed(rows, priceTable), days, workflows, prices: pricesOf(priceTable) } };
    },
  }),
];
