/**
 * @module Counts storage round trips, for the benchmark and for tests that pin the cost of an
 * operation. Tables get a core-rest-pipeline policy at `perRetry` (every HTTP attempt counts); the blob
 * SDK only takes legacy request-policy factories, which run once per call (before its retry policy),
 * so a retried blob call counts once. On loopback retries do not happen, so both are exact there.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import type { RequestPolicyFactory } from '@azure/storage-blob';

export type StorageService = 'table' | 'blob';

export interface RequestCounts {
  readonly total: number;
  readonly table: number;
  readonly blob: number;
  /** Per kind of call, e.g. `table GET`, `table POST $batch`, `blob lease acquire`. */
  readonly byKind: Readonly<Record<string, number>>;
}

export interface RequestCounter {
  /** For TableClient's `additionalPolicies` (use position `perRetry`). */
  readonly tablePolicy: PipelinePolicy;
  /** For the blob SDK's Pipeline factories. */
  readonly blobPolicyFactory: RequestPolicyFactory;
  counts(): RequestCounts;
  /** The requests since the last reset, in the order they were sent: kind and table or container (Azurite's path-style URLs), at most 1,000. */
  requests(): readonly string[];
  reset(): void;
}

const MAX_LISTED_REQUESTS = 1000;

/** The table or container a request URL names (`.../account/<name>(keys)?query`), or '' when it names none. */
function targetOf(url: string): string {
  const path = new URL(url).pathname.split('/').filter(Boolean);
  const name = (path[1] ?? path[0] ?? '').replace(/\(.*$/, '');
  return decodeURIComponent(name);
}

export function createRequestCounter(): RequestCounter {
  let table = 0;
  let blob = 0;
  let byKind: Record<string, number> = {};
  let listed: string[] = [];
  const record = (service: StorageService, kind: string, url: string): void => {
    if (service === 'table') table += 1;
    else blob += 1;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (listed.length < MAX_LISTED_REQUESTS) listed.push(`${kind} ${targetOf(url)}`.trim());
  };
  return {
    tablePolicy: {
      name: 'signalboxRequestCounterPolicy',
      sendRequest: (request, next) => {
        record('table', `table ${request.method}${request.url.includes('$batch') ? ' $batch' : ''}`, request.url);
        return next(request);
      },
    },
    blobPolicyFactory: {
      create: (nextPolicy) => ({
        sendRequest: (request) => {
          const leaseAction = request.headers.get('x-ms-lease-action');
          record('blob', leaseAction ? `blob lease ${leaseAction}` : `blob ${request.method}`, request.url);
          return nextPolicy.sendRequest(request);
        },
      }),
    },
    counts: () => ({ total: table + blob, table, blob, byKind: { ...byKind } }),
    requests: () => [...listed],
    reset: () => {
      table = 0;
      blob = 0;
      byKind = {};
      listed = [];
    },
  };
}
