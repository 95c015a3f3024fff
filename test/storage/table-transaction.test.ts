/**
 * Transactions rendered in src/storage: the same request the SDK's `submitTransaction` sends (body,
 * headers, URL), the same reading of the answer, through the client's own pipeline, and no throw-away
 * client per transaction. The request is captured by an HTTP client that answers without a network;
 * the stores' contract suites run the real thing on Azurite.
 */
import { AzureNamedKeyCredential, TableClient, type TransactionAction } from '@azure/data-tables';
import { createHttpHeaders, type HttpClient, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import { submitTransaction, transactionSenderOf } from '../../src/storage/table-transaction';
import { createTableClient } from '../../src/storage/connection';
import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from '../../src/storage/development-storage';
import { createRequestCounter } from '../../src/storage/request-counter';
import { createTestStorage, makeHistoryEntry, makeInstance, makeOperation } from './fixtures';

interface Captured {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const SUCCESS =
  '--batchresponse_b\r\nContent-Type: multipart/mixed; boundary=changesetresponse_c\r\n\r\n' +
  '--changesetresponse_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 204 No Content\r\nETag: W/"datetime\'2026-01-01T00%3A00%3A00.1Z\'"\r\n\r\n\r\n' +
  "--changesetresponse_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 201 Created\r\nLocation: http://x/t(PartitionKey='p',RowKey='r2')\r\nETag: W/\"e2\"\r\n\r\n\r\n" +
  '--changesetresponse_c--\r\n--batchresponse_b--\r\n';
const CONFLICT =
  '--batchresponse_b\r\nContent-Type: multipart/mixed; boundary=changesetresponse_c\r\n\r\n' +
  '--changesetresponse_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 409 Conflict\r\nContent-Type: application/json;odata=minimalmetadata\r\n\r\n' +
  '{"odata.error":{"code":"EntityAlreadyExists","message":{"lang":"en-US","value":"0:The specified entity already exists."}}}\r\n' +
  '--changesetresponse_c--\r\n--batchresponse_b--\r\n';

function capturingClient(answer: { status: number; body: string }, counter = createRequestCounter()): { client: TableClient; captured: Captured[] } {
  const captured: Captured[] = [];
  const httpClient: HttpClient = {
    sendRequest: async (request: PipelineRequest): Promise<PipelineResponse> => {
      captured.push({ url: request.url, method: request.method, headers: request.headers.toJSON(), body: String(request.body) });
      return { request, status: answer.status, headers: createHttpHeaders({ 'content-type': 'multipart/mixed; boundary=batchresponse_b' }), bodyAsText: answer.body };
    },
  };
  const client = new TableClient(`http://127.0.0.1:10002/${AZURITE_ACCOUNT_NAME}`, 'someTable', new AzureNamedKeyCredential(AZURITE_ACCOUNT_NAME, AZURITE_ACCOUNT_KEY), {
    httpClient,
    allowInsecureConnection: true,
    additionalPolicies: [{ policy: counter.tablePolicy, position: 'perRetry' }],
  });
  return { client, captured };
}

/** Boundaries are fresh UUIDs per transaction; the date, request id and signature change per request. */
function comparable(request: Captured): Captured {
  const ids = [...new Set(request.body.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [])];
  const normalise = (text: string) => ids.reduce((result, id, index) => result.replaceAll(id, `uuid-${index}`), text);
  const { 'x-ms-date': _date, 'x-ms-client-request-id': _requestId, authorization: _signature, ...headers } = request.headers;
  return { ...request, body: normalise(request.body), headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, normalise(value)])) };
}

const ACTIONS: TransactionAction[] = [
  [
    'create',
    {
      partitionKey: 'p',
      rowKey: "it's",
      text: 'naïve ✓ "quoted"\n',
      count: 3,
      ratio: 1.5,
      flag: false,
      empty: null,
      at: new Date(0),
      big: 5n,
      typed: { value: '7', type: 'Int64' },
      bytes: new Uint8Array([1, 2, 255]),
    },
  ],
  ['upsert', { partitionKey: 'p', rowKey: 'a b/c#d?e%f', text: 'upserted' }, 'Replace'],
  ['upsert', { partitionKey: 'p', rowKey: 'merged', text: 'merged' }],
  ['update', { partitionKey: 'p', rowKey: "o'clock", text: 'replaced' }, 'Replace', { etag: 'W/"datetime\'2026-01-01T00%3A00%3A00.1Z\'"' }],
  ['update', { partitionKey: 'p', rowKey: 'any', text: 'merged' }, 'Merge'],
  ['delete', { partitionKey: 'p', rowKey: 'gone' }],
];

describe('submitTransaction (src/storage)', () => {
  it('sends the request the SDK sends for the same actions: URL, headers and multipart body', async () => {
    const { client, captured } = capturingClient({ status: 202, body: SUCCESS });
    await client.submitTransaction(ACTIONS);
    await submitTransaction(client, ACTIONS);
    expect(captured).toHaveLength(2);
    expect(comparable(captured[1]!)).toEqual(comparable(captured[0]!));
  });

  it('reads the answer as the SDK does: each sub-response’s status and ETag', async () => {
    const { client } = capturingClient({ status: 202, body: SUCCESS });
    const ours = await submitTransaction(client, ACTIONS.slice(0, 2));
    const sdk = await client.submitTransaction(ACTIONS.slice(0, 2));
    expect(ours.status).toBe(202);
    expect(ours.subResponses).toEqual(sdk.subResponses);
    expect(ours.subResponses[0]!.etag).toBe('W/"datetime\'2026-01-01T00%3A00%3A00.1Z\'"');
    expect(ours.getResponseForEntity('r2')).toEqual(sdk.getResponseForEntity('r2'));
  });

  it('fails as the SDK does when an action fails: a RestError with the service’s code, status and message', async () => {
    const { client } = capturingClient({ status: 202, body: CONFLICT });
    const ours = await submitTransaction(client, ACTIONS.slice(0, 1)).catch((error: unknown) => error);
    const sdk = await client.submitTransaction(ACTIONS.slice(0, 1)).catch((error: unknown) => error);
    expect(ours).toMatchObject({ name: 'RestError', code: 'EntityAlreadyExists', statusCode: 409, message: '0:The specified entity already exists.' });
    expect(ours).toMatchObject({ name: (sdk as Error).name, code: (sdk as { code: string }).code, statusCode: (sdk as { statusCode: number }).statusCode, message: (sdk as Error).message });
  });

  it('refuses, as the SDK does, actions on more than one partition, before sending anything', async () => {
    const { client, captured } = capturingClient({ status: 202, body: SUCCESS });
    await expect(submitTransaction(client, [ACTIONS[0]!, ['delete', { partitionKey: 'other', rowKey: 'r' }]])).rejects.toThrow('All operations in a transaction must target the same partitionKey');
    expect(captured).toHaveLength(0);
  });

  it('goes through the client’s own pipeline (counted once, as one $batch) and builds no client of its own', async () => {
    const counter = createRequestCounter();
    const { client } = capturingClient({ status: 202, body: SUCCESS }, counter);
    const sdkPath = jest.spyOn(client, 'submitTransaction');
    await submitTransaction(client, ACTIONS);
    expect(sdkPath).not.toHaveBeenCalled();
    expect(counter.counts().byKind).toEqual({ 'table POST $batch': 1 });
  });

  it('finds the SDK internals it sends through on the clients Signalbox makes (fails if an SDK upgrade moves them)', () => {
    const client = createTableClient(
      {
        kind: 'connectionString',
        connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT_NAME};AccountKey=${AZURITE_ACCOUNT_KEY};TableEndpoint=http://127.0.0.1:10002/${AZURITE_ACCOUNT_NAME}`,
      },
      't',
    );
    expect(transactionSenderOf(client)).toMatchObject({ allowInsecureConnection: true });
  });
});

describe('the stores’ transactions on Azurite', () => {
  it('are sent by src/storage, not through the SDK’s submitTransaction (a throw-away client each), and still hold', async () => {
    const storage = await createTestStorage();
    const sdkPath = jest.spyOn(TableClient.prototype, 'submitTransaction');
    try {
      const { operation } = await storage.operations.create(makeOperation('tx-op'));
      expect((await storage.operations.create(makeOperation('tx-op'))).created).toBe(false);
      await storage.operations.update({ ...operation, status: 'succeeded' }, { ifMatch: operation.etag });
      const created = await storage.instances.create(makeInstance('tx-instance'));
      const saved = await storage.instances.save({ ...created, stateId: 'next' }, { history: [makeHistoryEntry(1)] }, { ifMatch: created.etag });
      await expect(storage.instances.save(saved, {}, { ifMatch: created.etag })).rejects.toMatchObject({ name: 'PreconditionFailedError' });
      expect(sdkPath).not.toHaveBeenCalled();
      expect((await storage.operations.get('tx-op'))?.status).toBe('succeeded');
      expect((await storage.instances.get('tx-instance'))?.stateId).toBe('next');
    } finally {
      sdkPath.mockRestore();
    }
  });
});
