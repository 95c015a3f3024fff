/**
 * @module An operation record and its results cut to what the store can keep (pure): error messages
 * shortened, traces and results past their budgets left out, saying so on the record.
 */
import type { InstanceResult } from '../decide/instance-result';
import type { Operation } from './operation';
import { MAX_TRACED_RESULTS } from './operation-totals';

/** Characters kept of one instance's error message on an operation record. */
export const MAX_RESULT_ERROR_LENGTH = 500;
/**
 * Characters of JSON the per-instance results of one operation may take. Table Storage stores strings
 * as UTF-16 and an entity is at most 1 MiB: this leaves room for the trigger (at most 64 KiB) and the rest.
 */
export const MAX_OPERATION_RESULTS_LENGTH = 320_000;
/** Of MAX_OPERATION_RESULTS_LENGTH, at most this many characters are traces: outcomes are kept before traces. */
export const MAX_TRACES_LENGTH = 160_000;

function shortened(message: string, limit: number): string {
  return message.length <= limit ? message : `${message.slice(0, limit - 15)}… (truncated)`;
}

/**
 * One result as an operation's results partition keeps it (a row per instance): its error shortened as
 * on the record, and a trace longer than MAX_TRACES_LENGTH left out, so that every row fits (pure).
 */
export function fitResult(result: InstanceResult): InstanceResult {
  const error = result.error !== undefined && result.error.length > MAX_RESULT_ERROR_LENGTH ? shortened(result.error, MAX_RESULT_ERROR_LENGTH) : result.error;
  const { trace, error: _error, ...rest } = result;
  const keepTrace = trace !== undefined && JSON.stringify(trace).length <= MAX_TRACES_LENGTH;
  return { ...rest, ...(error !== undefined ? { error } : {}), ...(keepTrace ? { trace } : {}) };
}

/**
 * The operation as its store keeps it: error messages shortened, and the per-instance results cut to
 * fit MAX_OPERATION_RESULTS_LENGTH, saying so in `instancesTruncated`. An operation whose record would
 * not fit would otherwise never finish (its final write refused, it stays `running`) (pure).
 */
export function fitOperation<T extends Operation>(operation: T): T {
  let length = 0;
  let tracesLength = 0;
  let tracesDropped = false;
  const kept: InstanceResult[] = [];
  for (const [index, result] of operation.instances.entries()) {
    let fitted = result.error !== undefined && result.error.length > MAX_RESULT_ERROR_LENGTH ? { ...result, error: shortened(result.error, MAX_RESULT_ERROR_LENGTH) } : result;
    if (fitted.trace) {
      const traceLength = JSON.stringify(fitted.trace).length;
      if (index >= MAX_TRACED_RESULTS || tracesLength + traceLength > MAX_TRACES_LENGTH) {
        const { trace: _left, ...rest } = fitted;
        fitted = rest;
        tracesDropped = true;
      } else {
        tracesLength += traceLength;
      }
    }
    length += JSON.stringify(fitted).length + 1;
    if (length > MAX_OPERATION_RESULTS_LENGTH) break;
    kept.push(fitted);
  }
  const counted = Object.values(operation.summary).reduce((sum, count) => sum + count, 0);
  const truncated = kept.length < operation.instances.length || kept.length < counted;
  const tracesTruncated = tracesDropped || Boolean(operation.tracesTruncated);
  const changed = truncated !== Boolean(operation.instancesTruncated) || tracesTruncated !== Boolean(operation.tracesTruncated) || kept.some((result, index) => result !== operation.instances[index]);
  const error = operation.error !== undefined && operation.error.length > 4 * MAX_RESULT_ERROR_LENGTH ? shortened(operation.error, 4 * MAX_RESULT_ERROR_LENGTH) : operation.error;
  if (!changed && error === operation.error) return operation;
  const { instancesTruncated: _previous, tracesTruncated: _previousTraces, ...rest } = operation;
  return {
    ...rest,
    instances: kept,
    ...(error !== undefined ? { error } : {}),
    ...(truncated ? { instancesTruncated: true } : {}),
    ...(tracesTruncated ? { tracesTruncated: true } : {}),
  } as unknown as T;
}
