/**
 * @module Entity-group transactions (`$batch`) rendered here and sent through the table client's own
 * pipeline. The SDK's `TableClient.submitTransaction` builds a throw-away `TableClient` (a pipeline of
 * about 14 policies, proxy settings read from the environment) for every transaction and runs each
 * action through its generated client only to capture the sub-request text: the largest single item in
 * the server's CPU profile of a trigger, which makes three transactions. This renders the same multipart
 * body the SDK renders (pinned by test/storage/table-transaction.test.ts against the SDK's own output)
 * and sends it through the client's generated service client, the client the SDK itself sends
 * transactions through: the same signing, retry, logging and request counting. The response is read as
 * the SDK reads it, so callers see the same `TableTransactionResponse` and the same `RestError`s.
 *
 * Falls back to the SDK's own `submitTransaction` for endpoints whose transactions it rewrites (Cosmos
 * DB's table API) and if an SDK upgrade moves the fields read here.
 */
import { randomUUID } from 'node:crypto';
import { createHttpHeaders, createPipelineRequest, RestError, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import type { TableClient, TableEntity, TableTransactionEntityResponse, TableTransactionResponse, TransactionAction } from '@azure/data-tables';

const LINE = '\r\n';

/** The SDK's internals this module relies on (TableClient's private fields in @azure/data-tables 13). */
interface TableClientInternals {
  readonly generatedClient?: { sendRequest(request: PipelineRequest): Promise<PipelineResponse> };
  readonly allowInsecureConnection?: boolean;
}

type SendRequest = (request: PipelineRequest) => Promise<PipelineResponse>;

/** The client's own sender, or undefined when the SDK's path must be taken (see the module comment). */
export function transactionSenderOf(client: TableClient): { send: SendRequest; allowInsecureConnection: boolean } | undefined {
  const internals = client as unknown as TableClientInternals;
  const generated = internals.generatedClient;
  if (typeof generated?.sendRequest !== 'function' || rewritesTransactions(client.url)) return undefined;
  return { send: (request) => generated.sendRequest(request), allowInsecureConnection: internals.allowInsecureConnection === true };
}

/** Cosmos DB endpoints (and, as the SDK decides, a bare `localhost`): the SDK patches their sub-requests. */
function rewritesTransactions(url: string): boolean {
  const host = new URL(url).hostname;
  return host.includes('.table.cosmosdb.') || host.includes('.table.cosmos.') || host === 'localhost';
}

export async function submitTransaction(client: TableClient, actions: readonly TransactionAction[], options: { readonly abortSignal?: AbortSignal } = {}): Promise<TableTransactionResponse> {
  const sender = transactionSenderOf(client);
  if (!sender || actions.length === 0) return client.submitTransaction([...actions], options);
  const batchId = randomUUID();
  const changesetId = randomUUID();
  const [accountUrl, query] = splitQuery(client.url);
  const request = createPipelineRequest({
    url: `${withSlash(accountUrl)}$batch${query}`,
    method: 'POST',
    body: renderTransactionBody(`${withSlash(accountUrl)}${client.tableName}`, actions, batchId, changesetId),
    headers: createHttpHeaders({
      accept: 'application/json',
      'x-ms-version': '2019-02-02',
      DataServiceVersion: '3.0;',
      MaxDataServiceVersion: '3.0;NetFx',
      'Content-Type': `multipart/mixed; boundary=batch_${batchId}`,
      'Accept-Charset': 'UTF-8',
      Connection: 'Keep-Alive',
    }),
    allowInsecureConnection: sender.allowInsecureConnection,
    ...(options.abortSignal && { abortSignal: options.abortSignal }),
  });
  return parseTransactionResponse(await sender.send(request));
}

function splitQuery(url: string): [string, string] {
  const at = url.indexOf('?');
  return at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at)];
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** The multipart `$batch` body, byte for byte as @azure/data-tables renders it. */
export function renderTransactionBody(tableUrl: string, actions: readonly TransactionAction[], batchId: string, changesetId: string): string {
  const partitionKey = actions[0]![1].partitionKey;
  const parts = [`--batch_${batchId}${LINE}content-type: multipart/mixed; boundary=changeset_${changesetId}${LINE}${LINE}`];
  for (const action of actions) {
    const entity = action[1];
    // The SDK's own check: one transaction, one partition.
    if (entity.partitionKey !== partitionKey) throw new Error('All operations in a transaction must target the same partitionKey');
    parts.push(renderSubRequest(tableUrl, action, changesetId));
  }
  return `${parts.join(LINE)}${LINE}--changeset_${changesetId}--${LINE}--batch_${batchId}--${LINE}`;
}

function renderSubRequest(tableUrl: string, action: TransactionAction, changesetId: string): string {
  const [kind, entity] = action;
  const address = () => `${tableUrl}(PartitionKey='${keyInUrl(entity.partitionKey)}',RowKey='${keyInUrl(entity.rowKey)}')`;
  let start: string;
  let headers: string[];
  let body: string | undefined;
  if (kind === 'create') {
    start = `POST ${tableUrl}`;
    headers = ['Content-Type: application/json;odata=nometadata', 'Accept: application/json;odata=minimalmetadata', 'DataServiceVersion: 3.0', 'Prefer: return-no-content'];
    body = entityBody(entity);
  } else if (kind === 'delete') {
    start = `DELETE ${address()}`;
    headers = ['Accept: application/json;odata=minimalmetadata', 'DataServiceVersion: 3.0', 'If-Match: *'];
  } else {
    const mode = action[2] ?? 'Merge';
    if (mode !== 'Merge' && mode !== 'Replace') throw new Error(`Unexpected value for update mode: ${String(mode)}`);
    if (entity.partitionKey === undefined || entity.partitionKey === null) throw new Error("The entity's partitionKey cannot be undefined or null.");
    if (entity.rowKey === undefined || entity.rowKey === null) throw new Error("The entity's rowKey cannot be undefined or null.");
    start = `${mode === 'Merge' ? 'PATCH' : 'PUT'} ${address()}`;
    headers = ['Content-Type: application/json', 'DataServiceVersion: 3.0', 'Accept: application/json'];
    // An update is conditional (its ETag, or any existing entity); an upsert is not.
    if (kind === 'update') headers.push(`If-Match: ${action[3]?.etag ?? '*'}`);
    body = entityBody(entity);
  }
  const lines = [`--changeset_${changesetId}${LINE}content-type: application/http${LINE}content-transfer-encoding: binary`, '', `${start} HTTP/1.1`, ...headers, LINE];
  if (body !== undefined) lines.push(body);
  return lines.join(LINE);
}

/** A key inside the sub-request's URL: quotes doubled (OData), then URI-encoded, as the SDK does. */
function keyInUrl(key: string): string {
  return encodeURIComponent(key.replace(/'/g, "''"));
}

const EDM_TYPES = new Set(['Binary', 'Boolean', 'DateTime', 'Double', 'Guid', 'Int32', 'Int64', 'String']);
const SERVICE_NAMES: Readonly<Record<string, string>> = { partitionKey: 'PartitionKey', rowKey: 'RowKey', etag: 'odata.etag', timestamp: 'Timestamp' };

/** The entity as the service's JSON, with `@odata.type` annotations where JSON cannot say the type (the SDK's `serialize`). */
function entityBody(entity: TableEntity): string {
  const serialized: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entity)) {
    const key = SERVICE_NAMES[name] ?? name;
    let type: string | undefined;
    let written: unknown = value;
    if (value === undefined || value === null || typeof value === 'boolean' || typeof value === 'string' || typeof value === 'number') {
      written = value;
    } else if (typeof value === 'bigint') {
      written = value.toString();
      type = 'Int64';
    } else if (value instanceof Date) {
      type = 'DateTime';
    } else if (value instanceof Uint8Array) {
      written = Buffer.from(value).toString('base64');
      type = 'Binary';
    } else if (typeof value === 'object' && (value as { value?: unknown }).value !== undefined && (value as { type?: unknown }).type !== undefined) {
      const typed = value as { value: unknown; type: unknown };
      if (typeof typed.type !== 'string' || !EDM_TYPES.has(typed.type)) throw new Error(`Unknown EDM type ${typeof typed.value}`);
      written = typed.value;
      type = typed.type;
    } else {
      throw new Error(`Unknown EDM type ${typeof value}`);
    }
    serialized[key] = written;
    if (type) serialized[`${key}@odata.type`] = `Edm.${type}`;
  }
  return JSON.stringify(serialized);
}

/** The SDK's reading of a `$batch` response: each sub-response's status, ETag and RowKey; a failure as a RestError with the service's code. */
export function parseTransactionResponse(response: PipelineResponse): TableTransactionResponse {
  const status = response.status;
  const rawBody = response.bodyAsText ?? '';
  if (status < 200 || status >= 300) throw bodyError(rawBody, status, response);
  const subResponses = rawBody
    .split('--changesetresponse_')
    .slice(1, -1)
    .map((subResponse): TableTransactionEntityResponse => {
      const statusMatch = /HTTP\/1.1 ([0-9]*)/.exec(subResponse);
      if (statusMatch?.length !== 2) throw new Error(`Couldn't extract status from sub-response:\n ${subResponse}`);
      const subResponseStatus = Number.parseInt(statusMatch[1]!);
      if (!Number.isInteger(subResponseStatus)) throw new Error(`Expected sub-response status to be an integer ${subResponseStatus}`);
      const bodyMatch = /\{(.*)\}/.exec(subResponse);
      if (bodyMatch?.length === 2) throw bodyError(bodyMatch[0], subResponseStatus, response);
      const etag = /ETag: (.*)/.exec(subResponse)?.[1];
      const rowKey = /RowKey='(.*)'/.exec(subResponse)?.[1];
      return { status: subResponseStatus, ...(rowKey !== undefined && { rowKey }), ...(etag !== undefined && { etag }) };
    });
  return { status, subResponses, getResponseForEntity: (rowKey) => subResponses.find((sub) => sub.rowKey === rowKey) };
}

function bodyError(bodyText: string, statusCode: number, response: PipelineResponse): RestError {
  let parsed: { 'odata.error'?: { code?: string; message?: { value?: string } } } = {};
  try {
    parsed = JSON.parse(bodyText) as typeof parsed;
  } catch {
    parsed = {};
  }
  const error = parsed?.['odata.error'];
  return new RestError(error?.message?.value ?? 'Transaction Failed', {
    ...(error?.code !== undefined && { code: error.code }),
    statusCode,
    request: response.request,
    response,
  });
}
