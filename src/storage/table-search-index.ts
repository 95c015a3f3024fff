/**
 * @module The search index on Azure Table Storage (engine/search/search-port.ts): PartitionKey = the
 * workflow id, RowKey = `field!value!instance` (the value's sortable segment, engine/search/encoding.ts,
 * then the encoded instance id), a column `incarnation`. An instance's rows share its workflow's
 * partition, so a save's additions and removals are one entity-group transaction (up to 100 rows), and
 * a range of values of one field is one range scan of one partition. Claims of unique business keys are
 * rows `~key!<hex>` (`~` sorts after every field name) holding the claiming instance's id.
 */
import { createHash } from 'node:crypto';
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import { submitTransaction } from './table-transaction';
import type { OperationOptions, Page, PageOptions } from '../engine/ports';
import type { ClaimVerdict, KeyClaim, SearchIndexStore, SearchIndexWrite, SearchRange, SearchRow } from '../engine/search';
import { isEntityNotFound, statusOf, toSignalboxError, translate } from './errors';
import { decodeKey, encodeKey } from './keys';
import { queryPage, type TableRow } from './table-query';

/** Rows per entity-group transaction. */
const MAX_BATCH = 100;
const CLAIM_PREFIX = '~key!';

export class TableSearchIndex implements SearchIndexStore {
  constructor(private readonly client: TableClient) {}

  async write(workflowId: string, instanceId: string, write: SearchIndexWrite, options: OperationOptions = {}): Promise<void> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const instanceKey = encodeKey(instanceId, 'instance id');
    const incarnation = write.incarnation !== undefined ? { incarnation: write.incarnation } : {};
    const actions: TransactionAction[] = [
      ...write.add.map((entry): TransactionAction => ['upsert', { partitionKey, rowKey: `${entry}!${instanceKey}`, ...incarnation }, 'Replace']),
      ...write.remove.map((entry): TransactionAction => ['delete', { partitionKey, rowKey: `${entry}!${instanceKey}` }]),
    ];
    const what = `search rows of instance "${instanceId}"`;
    for (let start = 0; start < actions.length; start += MAX_BATCH) {
      const chunk = actions.slice(start, start + MAX_BATCH);
      try {
        await submitTransaction(this.client, chunk, { abortSignal: options.abortSignal });
      } catch (error) {
        // One row to remove was gone already (an earlier attempt removed it): the transaction failed as a
        // whole, so its rows are written one by one, absorbing exactly "not found".
        if (!isEntityNotFound(error)) throw toSignalboxError(error, what);
        for (const action of chunk) await this.single(action, what, options);
      }
    }
  }

  /**
   * The rows of many instances of one workflow, as `write` adds them (same keys and columns), packed 100
   * to a transaction: bulk loading (bench/search.bench.ts seeds with it), not the run loop, which writes
   * each instance's rows with its save.
   */
  async addMany(
    workflowId: string,
    instances: readonly { readonly instanceId: string; readonly entries: readonly string[]; readonly incarnation?: string }[],
    options: OperationOptions = {},
  ): Promise<void> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const actions = instances.flatMap(({ instanceId, entries, incarnation }) =>
      entries.map((entry): TransactionAction => [
        'upsert',
        { partitionKey, rowKey: `${entry}!${encodeKey(instanceId, 'instance id')}`, ...(incarnation !== undefined ? { incarnation } : {}) },
        'Replace',
      ]),
    );
    for (let start = 0; start < actions.length; start += MAX_BATCH) {
      await translate(`search rows of workflow "${workflowId}"`, () => submitTransaction(this.client, actions.slice(start, start + MAX_BATCH), { abortSignal: options.abortSignal }));
    }
  }

  async removeUnchanged(workflowId: string, instanceId: string, rows: readonly { readonly entry: string; readonly etag: string }[], options: OperationOptions = {}): Promise<void> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const instanceKey = encodeKey(instanceId, 'instance id');
    // One by one: a transaction's deletes carry no ETag (the SDK sends them unconditional).
    for (const { entry, etag } of rows) {
      await translate(`search rows of instance "${instanceId}"`, async () => {
        try {
          await this.client.deleteEntity(partitionKey, `${entry}!${instanceKey}`, { etag, abortSignal: options.abortSignal });
        } catch (error) {
          // Written again since (412) or gone (404): left as it is.
          if (statusOf(error) !== 412 && !isEntityNotFound(error)) throw error;
        }
      });
    }
  }

  private async single(action: TransactionAction, what: string, options: OperationOptions): Promise<void> {
    const [kind, entity] = action as [string, { partitionKey: string; rowKey: string }];
    try {
      if (kind === 'delete') await this.client.deleteEntity(entity.partitionKey, entity.rowKey, { abortSignal: options.abortSignal });
      else await this.client.upsertEntity(entity, 'Replace', { abortSignal: options.abortSignal });
    } catch (error) {
      if (!isEntityNotFound(error)) throw toSignalboxError(error, what);
    }
  }

  async scan(workflowId: string, range: SearchRange, options: PageOptions = {}): Promise<Page<SearchRow>> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    // Every part goes through the odata tag: the bounds hold values from a query.
    const filter = odata`PartitionKey eq ${partitionKey} and RowKey ge ${range.from} and RowKey lt ${range.to}`;
    return queryPage(this.client, filter, options, toSearchRow, `search index of workflow "${workflowId}"`, ['RowKey', 'incarnation', 'Timestamp']);
  }

  async claimBusinessKey(
    workflowId: string,
    businessKey: string,
    claimant: KeyClaim,
    judge: (current: KeyClaim) => Promise<ClaimVerdict>,
    options: OperationOptions = {},
  ): Promise<KeyClaim | undefined> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const rowKey = claimRowKey(businessKey);
    const what = `business key "${businessKey}"`;
    const row = { partitionKey, rowKey, ...claimColumns(claimant) };
    let last: KeyClaim | undefined;
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      try {
        await this.client.createEntity(row, { abortSignal: options.abortSignal });
        return undefined;
      } catch (error) {
        if (statusOf(error) !== 409) throw toSignalboxError(error, what);
      }
      let found: TableRow;
      try {
        found = await this.client.getEntity<Record<string, unknown>>(partitionKey, rowKey, { abortSignal: options.abortSignal });
      } catch (error) {
        if (isEntityNotFound(error)) continue; // released meanwhile: claim again
        throw toSignalboxError(error, what);
      }
      const current = claimOf(found);
      last = current;
      const verdict = await judge(current);
      if (verdict === 'held') return current;
      if (verdict === 'retry') continue;
      // Taken over on the claim's ETag: a race is lost (read again), never doubled.
      try {
        await this.client.updateEntity(row, 'Replace', { etag: found.etag, abortSignal: options.abortSignal });
        return undefined;
      } catch (error) {
        if (statusOf(error) !== 412 && !isEntityNotFound(error)) throw toSignalboxError(error, what);
      }
    }
    // Changed under us at every look (creators in a race each saw another's claim): the last holder seen answers.
    if (last) return last;
    throw toSignalboxError(new Error('the claim kept changing'), what);
  }

  async releaseBusinessKey(workflowId: string, businessKey: string, instanceId: string, options: OperationOptions & { token?: string } = {}): Promise<void> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    const rowKey = claimRowKey(businessKey);
    await translate(`business key "${businessKey}"`, async () => {
      try {
        const claim = await this.client.getEntity<Record<string, unknown>>(partitionKey, rowKey, { abortSignal: options.abortSignal });
        if (claim.instanceId === instanceId && (options.token === undefined || claim.token === options.token))
          await this.client.deleteEntity(partitionKey, rowKey, { etag: claim.etag, abortSignal: options.abortSignal });
      } catch (error) {
        if (!isEntityNotFound(error) && statusOf(error) !== 412) throw error;
      }
    });
  }
}

/** Looks at a key's claim this many times before answering with the last holder seen. */
const MAX_CLAIM_ATTEMPTS = 10;

function claimColumns(claim: KeyClaim): Record<string, string> {
  return { instanceId: claim.instanceId, ...(claim.token !== undefined ? { token: claim.token } : {}), ...(claim.claimedAt !== undefined ? { claimedAt: claim.claimedAt } : {}) };
}

function claimOf(row: TableRow): KeyClaim {
  return {
    instanceId: String(row.instanceId),
    ...(typeof row.token === 'string' ? { token: row.token } : {}),
    ...(typeof row.claimedAt === 'string' ? { claimedAt: row.claimedAt } : {}),
  };
}

/** Hashed: a business key of 256 characters may not fit in a key, and the claim need not show it. */
function claimRowKey(businessKey: string): string {
  return `${CLAIM_PREFIX}${createHash('sha256').update(businessKey, 'utf8').digest('base64url')}`;
}

function toSearchRow(row: TableRow): SearchRow {
  const rowKey = String(row.rowKey);
  const cut = rowKey.lastIndexOf('!');
  return {
    entry: rowKey.slice(0, cut),
    instanceId: decodeKey(rowKey.slice(cut + 1)),
    ...(typeof row.incarnation === 'string' ? { incarnation: row.incarnation } : {}),
    ...(typeof row.timestamp === 'string' ? { writtenAt: row.timestamp } : {}),
    ...(typeof row.etag === 'string' ? { etag: row.etag } : {}),
  };
}
