/**
 * @module Which billed kind a storage request is (decision 0021), from its method, URL and headers alone,
 * and the pipeline policies that report each request to a meter. The meter is the host's (src/host/cost:
 * it adds the request to the operation being worked on); storage only classifies and reports.
 *
 * Tables: a GET naming one entity by its keys (`…/table(PartitionKey='…',RowKey='…')`) is a point read,
 * any other GET a query (one request per page); POST, PUT, PATCH, MERGE and DELETE are writes, and so is
 * an entity-group transaction (`$batch`: one request however many entities it holds). Blobs: a request
 * with `x-ms-lease-action` is a lease request, a GET or HEAD a read, anything else a write.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import type { RequestPolicyFactory } from '@azure/storage-blob';
import type { StorageRequestKind } from '../engine/operations';

export interface StorageRequestMeter {
  /** Called once per HTTP attempt, as it is sent. */
  count(kind: StorageRequestKind): void;
}

/** One entity by its keys: the path's last segment is `table(PartitionKey='…',RowKey='…')`. */
const POINT_READ = /\(\s*PartitionKey\s*=.*RowKey\s*=.*\)\s*$/i;

export function tableRequestKind(method: string, url: string): StorageRequestKind {
  if (method.toUpperCase() !== 'GET') return 'tableWrite';
  const path = decodeURIComponent(new URL(url).pathname);
  return POINT_READ.test(path) ? 'tableRead' : 'tableQuery';
}

export function blobRequestKind(method: string, leaseAction: string | undefined): StorageRequestKind {
  if (leaseAction) return 'blobLease';
  const upper = method.toUpperCase();
  return upper === 'GET' || upper === 'HEAD' ? 'blobRead' : 'blobWrite';
}

/** For TableClient's `additionalPolicies` at `perRetry`: every attempt counts, as every attempt is billed. */
export function tableMeterPolicy(meter: StorageRequestMeter): PipelinePolicy {
  return {
    name: 'signalboxTableMeterPolicy',
    sendRequest: (request, next) => {
      meter.count(tableRequestKind(request.method, request.url));
      return next(request);
    },
  };
}

/**
 * For the blob SDK's legacy factories (its only public extension point), which run once per call before
 * its retry policy: a retried blob call counts once (request-counter.ts says the same of the counter).
 */
export function blobMeterPolicyFactory(meter: StorageRequestMeter): RequestPolicyFactory {
  return {
    create: (nextPolicy) => ({
      sendRequest: (request) => {
        meter.count(blobRequestKind(request.method, request.headers.get('x-ms-lease-action') ?? undefined));
        return nextPolicy.sendRequest(request);
      },
    }),
  };
}
