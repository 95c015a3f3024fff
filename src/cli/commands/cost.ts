/**
 * @module `signalbox cost <workflowId> [--since yyyy-mm-dd]`: what the workflow's operations cost (decision
 * 0021, docs/guides/cost.md): counted storage requests by kind, outbound calls and bytes, durable
 * activities, per UTC day and in all, and the estimate from the server's price table with its date and
 * source. Everything printed goes through Output (server text is escaped there).
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import { UsageError } from '../errors';
import type { CommandContext } from '../context';

export interface CostOptions {
  readonly since?: string;
}

/** An amount of the estimate: six decimals, as the server rounds it. */
function money(amount: number, currency: string): string {
  return `${amount.toFixed(6)} ${currency}`;
}

export async function costCommand(context: CommandContext, workflowId: string, options: CostOptions): Promise<void> {
  if (options.since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(options.since)) throw new UsageError(`--since: a UTC day, yyyy-mm-dd (got ${JSON.stringify(options.since)})`);
  const cost = await context.api.workflowCost(workflowId, options.since);
  const { output } = context;
  if (context.json) return output.printJson(cost);
  const { storage, outbound, activities } = cost.cost;
  output.print(`Workflow ${cost.workflowId} since ${cost.since}: ${cost.operations} operation(s), estimated ${money(cost.estimate.total, cost.estimate.currency)}`);
  output.print(
    output.table(
      ['DAY', 'OPERATIONS', 'REQUESTS', 'TABLE R/Q/W', 'BLOB LEASE/R/W', 'OUTBOUND', 'ACTIVITIES', 'ESTIMATE'],
      [...cost.days, { day: 'total', ...cost }].map((day) => [
        day.day,
        day.operations,
        day.estimate.storageRequests,
        `${day.cost.storage.tableRead}/${day.cost.storage.tableQuery}/${day.cost.storage.tableWrite}`,
        `${day.cost.storage.blobLease}/${day.cost.storage.blobRead}/${day.cost.storage.blobWrite}`,
        `${day.cost.outbound.calls} (${day.cost.outbound.bytesSent} B out)`,
        day.cost.activities,
        money(day.estimate.total, day.estimate.currency),
      ]),
    ),
  );
  if (storage.tableRead + storage.tableQuery + storage.tableWrite + storage.blobLease + storage.blobRead + storage.blobWrite + outbound.calls + activities === 0)
    output.note('No operations counted in this period.');
  output.note(`Prices: ${cost.prices.region}, taken on ${cost.prices.takenOn}. ${cost.prices.source}`);
  output.note('Not counted: Functions execution time, the durable backend’s own storage or DTS actions (docs/guides/cost.md).');
}

export function defineCostCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('cost')
    .description("what a workflow's operations cost: counted requests per day and an estimate from the price table")
    .argument('<workflowId>', 'the workflow')
    .option('--since <day>', 'the first UTC day (yyyy-mm-dd; at most 367 days back; the server default: 30 days ago)')
    .addHelpText('after', examples('signalbox cost orders', 'signalbox cost orders --since 2026-11-01 --json'))
    .action((workflowId: string, options: CostOptions, command: Command) => costCommand(contextOf(command), workflowId, options));
}
