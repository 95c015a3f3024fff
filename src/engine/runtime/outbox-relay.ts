/**
 * @module The relay: delivers an instance's outbox rows after its lease is released, in order, and
 * deletes them once delivered. A delivery that fails stops the relay for that instance (later rows keep
 * their order) and is thrown; the rows stay, listed on the instance (`outbox`), so the next load under the
 * lease or the start-up sweep hands them to the relay again. Row ids are deterministic, so a row delivered
 * twice (a crash between delivery and deletion) is recognised downstream: a raised trigger's id is its
 * operation's id.
 */
import type { EngineLogger } from '../steps/effects';
import { isStoredOutboxRow, type OutboxRow, type StoredOutboxRow } from '../model/outbox';
import type { OperationOptions, OutboxStore, PageOptions } from '../ports/ports';

type OutboxHandler<K extends OutboxRow['kind']> = (row: Extract<OutboxRow, { kind: K }>, options?: OperationOptions) => Promise<void>;

/**
 * One delivery function per row kind; each must be idempotent by row id. Raised triggers always need
 * one; a host without a handler for a later kind (timers, ...) fails that row's delivery, which keeps it.
 */
export type OutboxHandlers = { readonly trigger: OutboxHandler<'trigger'> } & {
  readonly [K in Exclude<OutboxRow['kind'], 'trigger'>]?: OutboxHandler<K>;
};

export class OutboxRelay {
  /**
   * Rows this relay is delivering right now. A delivery may re-enter (in-process delivery applies the
   * raised trigger, whose load finds the row not yet deleted): such a row is skipped, not sent again.
   */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly store: OutboxStore,
    private readonly handlers: Partial<OutboxHandlers>,
  ) {}

  /**
   * Delivers `rows` of one instance in order; deletes those delivered (one call). Throws the first
   * failure. Returns true when every row was delivered by this call (none was already in flight).
   */
  async relay(instanceId: string, rows: readonly OutboxRow[], options: OperationOptions = {}): Promise<boolean> {
    const mine = rows.filter((row) => !this.inFlight.has(`${instanceId}\u0000${row.id}`));
    if (mine.length === 0) return rows.length === 0;
    const keys = mine.map((row) => `${instanceId}\u0000${row.id}`);
    keys.forEach((key) => this.inFlight.add(key));
    const delivered: string[] = [];
    try {
      for (const row of mine) {
        const handler = this.handlers[row.kind] as ((row: OutboxRow, options?: OperationOptions) => Promise<void>) | undefined;
        if (!handler) throw new Error(`this host delivers no outbox rows of kind "${row.kind}" (row "${row.id}" of instance "${instanceId}" stays)`);
        await handler(row, options);
        if (isStoredOutboxRow(row)) delivered.push(row.id);
      }
    } finally {
      try {
        if (delivered.length) await this.store.deleteOutbox(instanceId, delivered, options);
      } finally {
        keys.forEach((key) => this.inFlight.delete(key));
      }
    }
    return mine.length === rows.length;
  }

  /**
   * Delivers every row left in the store (start-up: a crash between a save and its relay). Failures are
   * logged and the sweep goes on with the next instance; returns how many rows were delivered.
   */
  async sweep(logger: EngineLogger, options: PageOptions = {}): Promise<number> {
    let delivered = 0;
    for await (const page of this.store.listAllOutbox(options).byPage({ maxPageSize: 1000 })) {
      for (const [instanceId, rows] of groupByInstance(page.items)) {
        try {
          await this.relay(instanceId, rows, options);
          delivered += rows.length;
        } catch (error) {
          logger.warn('Could not deliver leftover outbox rows; they stay for the next load or start', { instanceId, error: String(error) });
        }
      }
    }
    return delivered;
  }
}

function groupByInstance(items: readonly StoredOutboxRow[]): Map<string, OutboxRow[]> {
  const groups = new Map<string, OutboxRow[]>();
  for (const { instanceId, row } of items) {
    let rows = groups.get(instanceId);
    if (!rows) groups.set(instanceId, (rows = []));
    rows.push(row);
  }
  return groups;
}
