/**
 * @module What an operation, or an instance's applications, cost in counted requests (decision 0021): the
 * shapes only; the arithmetic is in src/engine/operations/operation-cost.ts. Here so that an instance can
 * carry its running totals (Instance.cost).
 */

/** Storage requests by the kind the price lists bill (src/storage/request-kind.ts classifies them). */
export interface StorageRequestCounts {
  /** A point read of one entity (GET with its keys). */
  readonly tableRead: number;
  /** A query (GET with a filter, or of a range): one request per page. */
  readonly tableQuery: number;
  /** Insert, update, upsert, delete, or an entity-group transaction (`$batch`: one request). */
  readonly tableWrite: number;
  /** Acquire, renew, release, break or change a blob lease. */
  readonly blobLease: number;
  /** GET or HEAD of a blob or container. */
  readonly blobRead: number;
  /** PUT, POST or DELETE of a blob or container (other than a lease). */
  readonly blobWrite: number;
}

export type StorageRequestKind = keyof StorageRequestCounts;

export interface OutboundCounts {
  /** HTTP attempts sent by invokeExternalService steps and event deliveries (a retry is another). */
  readonly calls: number;
  /** Request body bytes sent (Azure bills egress). */
  readonly bytesSent: number;
  /** Response body bytes received (ingress: not billed, counted for the record). */
  readonly bytesReceived: number;
}

export interface OperationCost {
  readonly storage: StorageRequestCounts;
  readonly outbound: OutboundCounts;
  /** Durable activities the operation's orchestration started (0 on the local server). */
  readonly activities: number;
}
