/**
 * @module The flow-control store on Table Storage. Layout (flow table): PartitionKey = encoded workflow id;
 * RowKey = the kind's prefix and the row's key, encoded (keys hold business values such as `customer:42`);
 * one JSON body per row, read with its kind's schema (parseFlowRow). Writes are conditional: an insert for a
 * new row, an update on the ETag read for an existing one.
 */
import { odata, type TableClient } from '@azure/data-tables';
import { NotFoundError, PreconditionFailedError } from '../engine/model';
import { parseFlowRow, type FlowRow, type FlowRowKind, type FlowStore, type OperationOptions } from '../engine/ports';
import { parseBody, toBody } from './entity-body';
import { isEntityNotFound, toSignalboxError, translate } from './errors';
import { decodeKey, encodeKey } from './keys';

export class TableFlowStore implements FlowStore {
  constructor(private readonly client: TableClient) {}

  async getRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string, options: OperationOptions = {}): Promise<FlowRow<Value> | undefined> {
    const rowKey = `${kind.prefix}${key}`;
    let entity: Record<string, unknown> & { etag?: unknown };
    try {
      entity = await this.client.getEntity<Record<string, unknown>>(encodeKey(workflowId, 'workflow id'), encodeKey(rowKey, 'flow key'), { abortSignal: options.abortSignal });
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `flow row "${rowKey}" of workflow "${workflowId}"`);
    }
    return parseFlowRow(workflowId, kind, key, parseBody<unknown>(entity), String(entity.etag));
  }

  async putRow<Value>(workflowId: string, kind: FlowRowKind<Value>, key: string, value: Value, options: OperationOptions & { ifMatch?: string } = {}): Promise<string> {
    const rowKey = `${kind.prefix}${key}`;
    const entity = { partitionKey: encodeKey(workflowId, 'workflow id'), rowKey: encodeKey(rowKey, 'flow key'), ...toBody(value) };
    const what = `flow row "${rowKey}" of workflow "${workflowId}"`;
    if (options.ifMatch === undefined) return String((await translate(what, () => this.client.createEntity(entity, { abortSignal: options.abortSignal }))).etag);
    const ifMatch = options.ifMatch;
    try {
      return String((await translate(what, () => this.client.updateEntity(entity, 'Replace', { etag: ifMatch, abortSignal: options.abortSignal }))).etag);
    } catch (error) {
      // The version written over is gone with its row: the same answer as a changed row (the in-memory store's).
      if (error instanceof NotFoundError) throw new PreconditionFailedError(`${what} no longer exists`);
      throw error;
    }
  }

  async listRows<Value>(workflowId: string, kind: FlowRowKind<Value>, prefix: string, options: OperationOptions & { maxRows?: number } = {}): Promise<FlowRow<Value>[]> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    // Encoding keeps a prefix a prefix (characters are escaped one by one) and yields only characters below
    // `~~` after it (`~` is the highest, and starts an escape followed by hex digits): a range query finds them.
    // Every kind has a prefix, so the range never reaches another kind's rows.
    const from = encodeKey(`${kind.prefix}${prefix}`, 'flow key prefix');
    const filter = odata`PartitionKey eq ${partitionKey} and RowKey ge ${from} and RowKey lt ${`${from}~~`}`;
    const rows: FlowRow<Value>[] = [];
    const maxRows = options.maxRows ?? 1000;
    await translate(`flow rows of workflow "${workflowId}"`, async () => {
      for await (const entity of this.client.listEntities<Record<string, unknown>>({ queryOptions: { filter }, abortSignal: options.abortSignal })) {
        const key = decodeKey(String(entity.rowKey)).slice(kind.prefix.length);
        rows.push(parseFlowRow(workflowId, kind, key, parseBody<unknown>(entity), String(entity.etag)));
        if (rows.length >= maxRows) break;
      }
    });
    return rows;
  }
}
