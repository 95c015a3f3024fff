/**
 * @module What finished operations cost, summed per workflow per UTC day (decision 0021): each completion
 * adds its cost here, in memory, and the sums go to the cost store (CostStore: a row per workflow per
 * day) in the background, every FLUSH_INTERVAL_IN_MS and when the host stops, so that a trigger costs no
 * request more than before costs were counted. A sum read here adds what this process holds unwritten.
 *
 * What this trades: a process that dies loses at most the last interval's additions to the daily sums
 * (every operation's record still holds its own cost); a failed write is kept and tried again with the
 * same addition id, so a write whose answer was lost is not added twice (the row remembers the ids).
 */
import { randomUUID } from 'node:crypto';
import { addCost, emptyCost, type OperationCost } from '../../engine/operations';
import type { CostQuery, CostStore, DailyCost } from './cost-store';
import type { Logger } from '../operation-activity-service';

export const FLUSH_INTERVAL_IN_MS = 10_000;

interface Pending {
  readonly day: string;
  readonly workflowId: string;
  cost: OperationCost;
  operations: number;
}

function keyOf(day: string, workflowId: string): string {
  return `${day}\n${workflowId}`;
}

export class DailyCosts {
  /** Not yet handed to a write. */
  private pending = new Map<string, Pending>();
  /** Handed to a write that has not succeeded yet, with the addition id it is sent with. */
  private readonly writing = new Map<string, Pending & { readonly additionId: string }>();
  private flushing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: CostStore,
    private readonly logger: Logger,
    intervalInMs = FLUSH_INTERVAL_IN_MS,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalInMs);
    this.timer.unref();
  }

  add(day: string, workflowId: string, cost: OperationCost): void {
    const key = keyOf(day, workflowId);
    const entry = this.pending.get(key);
    if (entry) {
      entry.cost = addCost(entry.cost, cost);
      entry.operations += 1;
    } else this.pending.set(key, { day, workflowId, cost, operations: 1 });
  }

  /** Writes what is held (one write at a time); failures stay held for the next flush. */
  flush(): Promise<void> {
    this.flushing ??= this.writeHeld().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async writeHeld(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    for (const [key, entry] of batch) this.writing.set(`${key}\n${this.writing.size}\n${randomUUID()}`, { ...entry, additionId: randomUUID() });
    await Promise.all(
      [...this.writing].map(async ([key, entry]) => {
        try {
          await this.store.add(entry.day, entry.workflowId, entry.additionId, entry.cost, entry.operations);
          this.writing.delete(key);
        } catch (error) {
          this.logger.warn('could not add to the daily cost sums; tried again at the next flush', { day: entry.day, workflowId: entry.workflowId, error: String(error) });
        }
      }),
    );
  }

  /** The stored rows of the query, with what this process holds unwritten added. */
  async list(query: CostQuery): Promise<DailyCost[]> {
    const rows = await this.store.list(query);
    const byKey = new Map(rows.map((row) => [keyOf(row.day, row.workflowId), { ...row }]));
    for (const entry of [...this.writing.values(), ...this.pending.values()]) {
      if (entry.day < query.sinceDay || (query.workflowId !== undefined && entry.workflowId !== query.workflowId)) continue;
      const key = keyOf(entry.day, entry.workflowId);
      const row = byKey.get(key) ?? { day: entry.day, workflowId: entry.workflowId, operations: 0, cost: emptyCost() };
      byKey.set(key, { ...row, operations: row.operations + entry.operations, cost: addCost(row.cost, entry.cost) });
    }
    return [...byKey.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : 0));
  }

  /** Stops the timer and writes what is held. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
