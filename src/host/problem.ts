/**
 * @module Errors to RFC 9457 problem+json responses: one table from SignalboxError `code` to status.
 * Anything that is not a SignalboxError is a bug or an unexpected fault: a 500 that reveals nothing.
 * Storage faults reveal nothing either: their messages name endpoints and service error codes, so 5xx
 * answers, and conflicts translated from a storage failure (they carry it as `cause`), get a generic
 * detail, and the server log gets the message.
 */
import { SignalboxError, UniqueKeyTakenError, ValidationError, type SignalboxErrorCode, type ValidationIssue } from '../engine/model';
import type { ApiResponse } from './http/types';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const statusByCode: Record<SignalboxErrorCode, { status: number; title: string }> = {
  validation: { status: 400, title: 'Invalid request' },
  definitionInvalid: { status: 400, title: 'Invalid workflow definition' },
  notFound: { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  preconditionFailed: { status: 412, title: 'Precondition failed' },
  leaseUnavailable: { status: 503, title: 'Instance busy' },
  leaseLost: { status: 503, title: 'Instance busy' },
  tooLarge: { status: 413, title: 'Too large' },
  unsupportedMediaType: { status: 415, title: 'Unsupported media type' },
  storage: { status: 503, title: 'Storage unavailable' },
  flowQueued: { status: 503, title: 'Waiting for a concurrency slot' },
  forbidden: { status: 403, title: 'Forbidden' },
};

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly ValidationIssue[];
  /** A 409 for a unique key: the instance that holds it. */
  readonly existingInstanceId?: string;
}

export function problem(status: number, title: string, detail: string, errors?: readonly ValidationIssue[]): ApiResponse {
  const body: Problem = { type: `https://signalbox.dev/problems/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`, title, status, detail, ...(errors ? { errors } : {}) };
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE };
  if (status === 503) headers['retry-after'] = '1';
  return { status, headers, body };
}

/** What a client is told instead of a storage-level message. */
const genericDetail: Partial<Record<SignalboxErrorCode, string>> = {
  storage: 'Storage is unavailable or failed; retry later. The server log has the details.',
  leaseUnavailable: 'The instance is busy; retry later.',
  leaseLost: 'The instance is busy; retry later.',
  conflict: 'The resource already exists or was changed at the same time; read it again and retry.',
};

/** Maps any thrown value to a problem response; `log` receives the unexpected ones and the hidden details. */
export function problemResponse(error: unknown, log?: (message: string, error: unknown) => void): ApiResponse {
  if (error instanceof SignalboxError) {
    const { status, title } = statusByCode[error.code];
    const hidden = status >= 500 || (error.code === 'conflict' && error.cause !== undefined);
    if (hidden) log?.('request failed', error);
    const detail = hidden ? (genericDetail[error.code] ?? 'The request failed; the server log has the details.') : error.message;
    const answer = problem(status, title, detail, error instanceof ValidationError ? error.issues : undefined);
    return error instanceof UniqueKeyTakenError ? { ...answer, body: { ...(answer.body as Problem), existingInstanceId: error.existingInstanceId } } : answer;
  }
  log?.('unexpected error', error);
  return problem(500, 'Internal error', 'The request failed unexpectedly; the server log has the details.');
}
