/**
 * @module Armed timers by due time on Azure Table Storage, for the local server's scheduler
 * (src/host/local/local-timer-scheduler.ts). One partition, `due`, RowKey = the due time in milliseconds
 * (zero-padded, so rows sort by due time) + the encoded timer id: "what is due by now" is one range query
 * read in due order (the scheduler reads a little past now, so the first row not yet due is where it
 * sleeps until), and adding or removing a batch of rows is one
 * transaction per 100. Like the interest index it is a superset of the truth: the run loop adds rows
 * before the save that arms them, and whether a timer is still armed is decided by its instance at firing.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import { submitTransaction } from './table-transaction';
import type { DueTimerIndex, OperationOptions, Page, PageOptions } from '../engine/ports';
import type { DueTimer } from '../engine/decide';
import { isEntityNotFound, toSignalboxError, translate } from './errors';
import { encodeKey, padNumber } from './keys';
import { queryPage, type TableRow } from './table-query';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';

const PARTITION = 'due';
/** Enough digits for any due time up to the year 275760 (the largest JavaScript date). */
const DUE_DIGITS = 16;

/** Due times before 1970 (an `at` far in the past) sort as 0: they are all due at once anyway. */
function dueKey(ms: number): string {
  return padNumber(Math.max(0, ms), DUE_DIGITS);
}

function rowKey(timer: DueTimer): string {
  return `${dueKey(Date.parse(timer.dueAt))}_${encodeKey(timer.timerId, 'timer id')}`;
}

function toTimer(row: TableRow): DueTimer {
  return {
    timerId: String(row.timerId),
    instanceId: String(row.instanceId),
    transitionId: String(row.transitionId),
    stateEntry: Number(row.stateEntry),
    dueAt: String(row.dueAt),
    // Written only when the timer carries one (causal-budget.ts); rows from before causal depths have none.
    ...(typeof row.causalDepth === 'number' && row.causalDepth > 0 ? { causalDepth: row.causalDepth } : {}),
    // Likewise the budget (absent: the whole budget), so the trigger built from the row is the relay's.
    ...(typeof row.causalBudget === 'number' ? { causalBudget: row.causalBudget } : {}),
    ...(typeof row.incarnation === 'string' ? { incarnation: row.incarnation } : {}),
    // A pending retry's timer (timers.ts): it re-applies that trigger.
    ...(typeof row.retryTriggerId === 'string' ? { retry: { triggerId: row.retryTriggerId, attempt: Number(row.retryAttempt) } } : {}),
    // A debounced burst's timer (debounce.ts): it applies that burst.
    ...(typeof row.debounceTriggerId === 'string' ? { debounce: { triggerName: String(row.debounceTriggerName), triggerId: row.debounceTriggerId } } : {}),
    // A wait for room in a full state (capacity-waits.ts): it ends that wait.
    ...(typeof row.capacityTriggerId === 'string' ? { capacityWait: { triggerId: row.capacityTriggerId, stateId: String(row.capacityStateId), key: String(row.capacityKey) } } : {}),
  };
}

export class TableDueTimerIndex implements DueTimerIndex {
  constructor(private readonly client: TableClient) {}

  async add(timers: readonly DueTimer[], options: OperationOptions = {}): Promise<void> {
    // Replace-upserts: a row is keyed by what it says, so writing it twice is harmless.
    await this.inChunks(timers, async (chunk) => {
      if (chunk.length === 1) await translate('due timers', () => this.client.upsertEntity(this.entity(chunk[0]!), 'Replace', { abortSignal: options.abortSignal }));
      else
        await translate('due timers', () =>
          submitTransaction(
            this.client,
            chunk.map((timer) => ['upsert', this.entity(timer), 'Replace'] as TransactionAction),
            { abortSignal: options.abortSignal },
          ),
        );
    });
  }

  listDue(until: Date, options: PageOptions = {}): PagedAsyncIterable<DueTimer> {
    return pagedList((page) => this.listDuePage(until, page), options);
  }

  private async listDuePage(until: Date, options: PageOptions = {}): Promise<Page<DueTimer>> {
    const filter = odata`PartitionKey eq ${PARTITION} and RowKey lt ${dueKey(until.getTime() + 1)}`;
    return queryPage(this.client, filter, options, toTimer, 'due timers');
  }

  async remove(timers: readonly DueTimer[], options: OperationOptions = {}): Promise<void> {
    await this.inChunks(timers, async (chunk) => {
      try {
        await submitTransaction(
          this.client,
          chunk.map((timer) => ['delete', { partitionKey: PARTITION, rowKey: rowKey(timer) }] as TransactionAction),
          { abortSignal: options.abortSignal },
        );
      } catch (error) {
        // A transaction fails as a whole when one row is already gone: one by one then, absorbing "not found".
        if (!isEntityNotFound(error)) throw toSignalboxError(error, 'due timers');
        for (const timer of chunk) {
          try {
            await this.client.deleteEntity(PARTITION, rowKey(timer), { abortSignal: options.abortSignal });
          } catch (single) {
            if (!isEntityNotFound(single)) throw toSignalboxError(single, `due timer "${timer.timerId}"`);
          }
        }
      }
    });
  }

  private entity(timer: DueTimer) {
    return {
      partitionKey: PARTITION,
      rowKey: rowKey(timer),
      timerId: timer.timerId,
      instanceId: timer.instanceId,
      transitionId: timer.transitionId,
      stateEntry: timer.stateEntry,
      dueAt: timer.dueAt,
      ...(timer.causalDepth ? { causalDepth: timer.causalDepth } : {}),
      ...(timer.causalBudget !== undefined ? { causalBudget: timer.causalBudget } : {}),
      ...(timer.incarnation !== undefined ? { incarnation: timer.incarnation } : {}),
      ...(timer.retry ? { retryTriggerId: timer.retry.triggerId, retryAttempt: timer.retry.attempt } : {}),
      ...(timer.debounce ? { debounceTriggerName: timer.debounce.triggerName, debounceTriggerId: timer.debounce.triggerId } : {}),
      ...(timer.capacityWait ? { capacityTriggerId: timer.capacityWait.triggerId, capacityStateId: timer.capacityWait.stateId, capacityKey: timer.capacityWait.key } : {}),
    };
  }

  private async inChunks(timers: readonly DueTimer[], write: (chunk: DueTimer[]) => Promise<unknown>): Promise<void> {
    // One transaction may not touch a row twice.
    const unique = [...new Map(timers.map((timer) => [rowKey(timer), timer])).values()];
    for (let start = 0; start < unique.length; start += 100) await write(unique.slice(start, start + 100));
  }
}
