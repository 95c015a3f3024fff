/**
 * @module The flow-control store on Table Storage. Layout (flow table): PartitionKey = encoded workflow id;
 * RowKey = the caller's row key, encoded (keys hold business values such as `customer:42`); one JSON body per
 * row. Writes are conditional: an insert for a new row, an update on the ETag read for an existing one.
 */
import { odata, type TableClient } from '@azure/data-tables';
import type { JsonObject } from '../engine/model';
import type { FlowRow, FlowStore, OperationOptions } from '../engine/ports';
import { parseBody, toBody } from './entity-body';
import { isEntityNotFound, toSignalboxError, translate } from './errors';
import { decodeKey, encodeKey } from './keys';

export class TableFlowStore implements FlowStore {
  constructor(private readonly client: TableClient) {}

  async getRow(workflowId: string, rowKey: string, options: OperationOptions = {}): Promise<FlowRow | undefined> {
    try {
      const entity = await this.client.getEntity<Record<string, unknown>>(encodeKey(workflowId, 'workflow id'), encodeKey(rowKey, 'flow key'), { abortSignal: options.abortSignal });
      return { rowKey, value: parseBody<JsonObject>(entity), etag: String(entity.etag) };
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `flow row "${rowKey}" of workflow "${workflowId}"`);
    }
  }

  async putRow(workflowId: string, rowKey: string, value: JsonObject, options: OperationOptions & { ifMatch?: string } = {}): Promise<string> {
    const entity = { partitionKey: encodeKey(workflowId, 'workflow id'), rowKey: encodeKey(rowKey, 'flow key'), ...toBody(value) };
    const what = `flow row "${rowKey}" of workflow "${workflowId}"`;
    const response = await translate(what, () =>
      options.ifMatch === undefined
        ? this.client.createEntity(entity, { abortSignal: options.abortSignal })
        : this.client.updateEntity(entity, 'Replace', { etag: options.ifMatch, abortSignal: options.abortSignal }),
    );
    return String(response.etag);
  }

  async listRows(workflowId: string, prefix: string, options: OperationOptions & { maxRows?: number } = {}): Promise<FlowRow[]> {
    const partitionKey = encodeKey(workflowId, 'workflow id');
    // Encoding keeps a prefix a prefix (characters are escaped one by one) and yields only characters below
    // `~~` after it (`~` is the highest, and starts an escape followed by hex digits): a range query finds them.
    const from = prefix ? encodeKey(prefix, 'flow key prefix') : '';
    const filter = from ? odata`PartitionKey eq ${partitionKey} and RowKey ge ${from} and RowKey lt ${`${from}~~`}` : odata`PartitionKey eq ${partitionKey}`;
    const rows: FlowRow[] = [];
    const maxRows = options.maxRows ?? 1000;
    await translate(`flow rows of workflow "${workflowId}"`, async () => {
      for await (const entity of this.client.listEntities<Record<string, unknown>>({ queryOptions: { filter }, abortSignal: options.abortSignal })) {
        rows.push({ rowKey: decodeKey(String(entity.rowKey)), value: parseBody<JsonObject>(entity), etag: String(entity.etag) });
        if (rows.length >= maxRows) break;
      }
    });
    return rows;
  }
}
