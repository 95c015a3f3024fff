/**
 * @module What operations cost, summed per workflow per UTC day (decision 0021), in the operations table's
 * partition `~cost` (encodeKey never yields it, so no operation's own partition meets it): one row per
 * day and workflow, RowKey `<yyyy-mm-dd>.<encoded workflow id>` (a key may not hold `/`) (`~none` for the part of operations that
 * reached no workflow). Day first, so that "since a day" is one RowKey range of one partition: a tenant's
 * sum reads at most days × workflows rows, a workflow's the same range filtered by its `workflowId` column
 * (Table Storage filters non-key columns on the server; it still scans the range).
 *
 * The hosts add what finished operations cost in batches (src/host/cost/daily-costs.ts): one point read
 * and one conditional write per row and batch (If-Match its ETag; a row written meanwhile by another
 * worker fails it with 412 and is read again). Each row remembers the ids of the last RECENT_ADDITIONS
 * additions, so that one sent again (a write whose answer was lost) adds once.
 */
import { odata, type TableClient } from '@azure/data-tables';
import { addCost, emptyCost, type OperationCost } from '../engine/operations';
import { parseBody, toBody } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError } from './errors';
import { encodeKey } from './keys';
import { queryPage } from './table-query';

export const COST_PARTITION = '~cost';
/** The RowKey part of the cost of operations that reached no workflow. */
const NO_WORKFLOW = '~none';
/** Addition ids each row remembers, to add a repeated one once. */
export const RECENT_ADDITIONS = 32;
const MAX_WRITE_ATTEMPTS = 8;

/** One row: a workflow's (`''`: none) costs of one UTC day. */
export interface DailyCost {
  readonly day: string;
  readonly workflowId: string;
  readonly operations: number;
  readonly cost: OperationCost;
}

interface CostRowBody {
  readonly operations: number;
  readonly cost: OperationCost;
  readonly recent: readonly string[];
}

export interface CostQuery {
  /** The first day (yyyy-mm-dd, UTC) summed. */
  readonly sinceDay: string;
  /** Only this workflow's rows; absent: every row (the tenant's sum). */
  readonly workflowId?: string;
}

/** The UTC day of an ISO 8601 time. */
export function dayOf(isoTime: string): string {
  return new Date(isoTime).toISOString().slice(0, 10);
}

function rowKeyOf(day: string, workflowId: string): string {
  return `${day}.${workflowId === '' ? NO_WORKFLOW : encodeKey(workflowId, 'workflow id')}`;
}

export class TableCostStore {
  constructor(private readonly client: TableClient) {}

  /** Adds `cost` of `operations` operations to a workflow's row of `day`, once per `additionId` (as far as the row remembers). */
  async add(day: string, workflowId: string, additionId: string, cost: OperationCost, operations = 1): Promise<void> {
    const rowKey = rowKeyOf(day, workflowId);
    for (let attempt = 1; ; attempt += 1) {
      const existing = await this.read(rowKey);
      if (existing?.body.recent.includes(additionId)) return;
      const body: CostRowBody = {
        operations: (existing?.body.operations ?? 0) + operations,
        cost: addCost(existing?.body.cost ?? emptyCost(), cost),
        recent: [...(existing?.body.recent ?? []), additionId].slice(-RECENT_ADDITIONS),
      };
      const entity = { partitionKey: COST_PARTITION, rowKey, day, workflowId, ...toBody(body) };
      try {
        if (existing) await this.client.updateEntity(entity, 'Replace', { etag: existing.etag });
        else await this.client.createEntity(entity);
        return;
      } catch (error) {
        // Written meanwhile (412), or created meanwhile (409): read it again and add to that.
        const status = statusOf(error);
        if ((status !== 412 && status !== 409) || attempt >= MAX_WRITE_ATTEMPTS) throw toSignalboxError(error, `cost of workflow "${workflowId}" on ${day}`);
      }
    }
  }

  private async read(rowKey: string): Promise<{ body: CostRowBody; etag: string } | undefined> {
    try {
      const row = await this.client.getEntity<Record<string, unknown>>(COST_PARTITION, rowKey);
      return { body: parseBody<CostRowBody>(row), etag: String(row.etag) };
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `cost row "${rowKey}"`);
    }
  }

  /** The rows from `sinceDay` on, oldest day first (pages of up to 1,000 rows). */
  async list(query: CostQuery): Promise<DailyCost[]> {
    let filter = `${odata`PartitionKey eq ${COST_PARTITION}`} and ${odata`RowKey ge ${`${query.sinceDay}.`}`}`;
    if (query.workflowId !== undefined) filter += ` and ${odata`workflowId eq ${query.workflowId}`}`;
    const rows: DailyCost[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await queryPage(
        this.client,
        filter,
        { maxPageSize: 1000, ...(continuationToken ? { continuationToken } : {}) },
        (row) => {
          const body = parseBody<CostRowBody>(row);
          return { day: String(row.day), workflowId: String(row.workflowId ?? ''), operations: body.operations, cost: body.cost };
        },
        'cost rows',
      );
      rows.push(...page.items);
      continuationToken = page.continuationToken;
    } while (continuationToken);
    return rows;
  }
}
