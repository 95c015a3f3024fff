/**
 * @module The interest index on Azure Table Storage: a row per (subject, instance), PartitionKey =
 * encoded subject (long subjects hashed, see keys.ts), RowKey = encoded instance id. Finding the
 * candidates for a trigger is one partition query per subject, so it costs in proportion to the
 * matches, not to the number of instances. Rows for different subjects are in different partitions, so
 * one instance's add/remove cannot be one transaction; the rows go through one GroupedRowChanges per
 * index (grouped-row-changes.ts), so the changes that instances make at the same time to one subject's
 * partition (a trigger name every instance waiting for it holds) go out as one transaction. All of
 * them are idempotent, so a retried add or remove is harmless.
 */
import { odata, type TableClient } from '@azure/data-tables';
import type { InterestIndex, OperationOptions, Page, PageOptions } from '../engine/ports';
import { decodeToken, encodeToken, isSdkTableToken, pageSize } from './continuation-token';
import { toSignalboxError, translate } from './errors';
import { GroupedRowChanges } from './grouped-row-changes';
import { decodeKey, encodeKey, encodeLookupKey } from './keys';
import { pagedList, type PagedAsyncIterable } from '../engine/ports';

export interface TableInterestIndexOptions {
  /** Parallel row writes per add/remove call. @default 16 */
  concurrency?: number;
}

interface CandidateToken {
  /** Index of the subject being read. */
  readonly s: number;
  /** The table's token within that subject's partition. */
  readonly t?: string;
}

function isCandidateToken(value: unknown): value is CandidateToken {
  if (typeof value !== 'object' || value === null) return false;
  const { s, t } = value as { s?: unknown; t?: unknown };
  return typeof s === 'number' && Number.isInteger(s) && s >= 0 && (t === undefined || isSdkTableToken(t));
}

export class TableInterestIndex implements InterestIndex {
  private readonly concurrency: number;
  private readonly rows: GroupedRowChanges;

  constructor(
    private readonly client: TableClient,
    options: TableInterestIndexOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 16;
    this.rows = new GroupedRowChanges(client);
  }

  async add(instanceId: string, subjects: readonly string[], options: OperationOptions = {}): Promise<void> {
    const rowKey = encodeKey(instanceId, 'instance id');
    await this.forEach(subjects, (subject) =>
      translate(`interest "${subject}" of instance "${instanceId}"`, () =>
        // Replace-upsert: the row carries nothing but its keys, and writing it twice is harmless.
        this.rows.put({ partitionKey: encodeLookupKey(subject), rowKey }, options),
      ),
    );
  }

  async remove(instanceId: string, subjects: readonly string[], options: OperationOptions = {}): Promise<void> {
    const rowKey = encodeKey(instanceId, 'instance id');
    await this.forEach(subjects, async (subject) => {
      try {
        // A row that is not there counts as removed.
        await this.rows.delete({ partitionKey: encodeLookupKey(subject), rowKey }, options);
      } catch (error) {
        throw toSignalboxError(error, `interest "${subject}" of instance "${instanceId}"`);
      }
    });
  }

  /**
   * Reads the subjects' partitions in order, filling the page; the token remembers the subject and the
   * position within it. An instance interested in several of the subjects appears once per page (it
   * may appear again on a later page; the engine's per-instance trigger-id check makes that harmless).
   */
  findCandidates(subjects: readonly string[], options: PageOptions = {}): PagedAsyncIterable<string> {
    return pagedList((page) => this.findCandidatesPage(subjects, page), options);
  }

  private async findCandidatesPage(subjects: readonly string[], options: PageOptions = {}): Promise<Page<string>> {
    const size = pageSize(options.maxPageSize);
    const keys = [...new Set(subjects.map(encodeLookupKey))];
    const start = options.continuationToken === undefined ? { s: 0 } : decodeToken(options.continuationToken, isCandidateToken);
    const seen = new Set<string>();
    let subject = start.s;
    let tableToken = start.t;
    while (subject < keys.length && seen.size < size) {
      const partitionKey = keys[subject] as string;
      const pages = this.client
        .listEntities({ queryOptions: { filter: odata`PartitionKey eq ${partitionKey}`, select: ['RowKey'] }, abortSignal: options.abortSignal })
        .byPage({ maxPageSize: size - seen.size, ...(tableToken && { continuationToken: tableToken }) });
      const result = await translate('interest index', () => pages.next());
      if (!result.done) for (const row of result.value) seen.add(decodeKey(row.rowKey as string));
      tableToken = result.done ? undefined : result.value.continuationToken;
      if (!tableToken) subject += 1;
    }
    const items = [...seen];
    if (subject >= keys.length) return { items };
    return { items, continuationToken: encodeToken(tableToken ? { s: subject, t: tableToken } : { s: subject }) };
  }

  private async forEach(subjects: readonly string[], write: (subject: string) => Promise<unknown>): Promise<void> {
    const unique = [...new Set(subjects)];
    let next = 0;
    const errors: unknown[] = [];
    const worker = async (): Promise<void> => {
      while (next < unique.length) {
        const subject = unique[next++] as string;
        try {
          await write(subject);
        } catch (error) {
          errors.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, unique.length) }, worker));
    // Every row was attempted; the first failure is reported (all are the same kind in practice).
    if (errors.length > 0) throw errors[0];
  }
}
