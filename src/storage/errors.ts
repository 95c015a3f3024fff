/**
 * @module Translates Azure SDK failures into the engine's error family, so no RestError ever leaves
 * `src/storage` or `src/leasing`. Branches on `statusCode`: on Azurite `RestError.code` is undefined for
 * table errors (the service's code is only in `details.errorCode` or the body), so codes are used only
 * to refine a status (a missing table is not a missing entity).
 */
import { ConflictError, NotFoundError, PreconditionFailedError, SignalboxError, StorageError, TooLargeError } from '../engine/model';

/** The parts of a RestError we read (duck-typed: several copies of core-rest-pipeline may be loaded). */
export interface RestErrorLike extends Error {
  readonly statusCode?: number;
  readonly code?: string;
  readonly details?: unknown;
}

export function isRestError(error: unknown): error is RestErrorLike {
  return error instanceof Error && error.name === 'RestError';
}

/** The service's error code wherever this SDK and service put it (code, details.errorCode, odata body). */
export function serviceErrorCode(error: RestErrorLike): string | undefined {
  if (error.code) return error.code;
  const details = error.details as { errorCode?: unknown } | undefined;
  if (details && typeof details.errorCode === 'string') return details.errorCode;
  const match = /"code"\s*:\s*"([A-Za-z]+)"/.exec(error.message);
  return match?.[1];
}

export function statusOf(error: unknown): number | undefined {
  return isRestError(error) ? error.statusCode : undefined;
}

const containerMissing = new Set(['TableNotFound', 'ContainerNotFound']);

/**
 * A table or container of this name is still being deleted (Azure deletes them asynchronously: a name is
 * taken for some tens of seconds after its deletion). Retryable: creating it again later succeeds.
 */
export class StorageBeingDeletedError extends StorageError {
  constructor(what: string, status: number | undefined, options?: { cause?: unknown }) {
    super(`Storage for ${what} is being deleted`, status, true, options);
  }
}
const beingDeleted = new Set(['TableBeingDeleted', 'ContainerBeingDeleted']);

/** A 404 for the entity or blob itself, not for its table or container. */
export function isEntityNotFound(error: unknown): boolean {
  if (!isRestError(error) || error.statusCode !== 404) return false;
  const code = serviceErrorCode(error);
  return code === undefined || !containerMissing.has(code);
}
const tooLarge = new Set(['EntityTooLarge', 'PropertyValueTooLarge', 'RequestBodyTooLarge']);

/**
 * The SignalboxError for a failure while doing `what` (e.g. `instance "a"`). SignalboxErrors and aborts
 * pass through; other non-RestErrors are bugs and pass through too, so their stack is not hidden.
 */
export function toSignalboxError(error: unknown, what: string): unknown {
  if (error instanceof SignalboxError || !isRestError(error)) return error;
  const status = error.statusCode;
  const code = serviceErrorCode(error);
  const cause = { cause: error };
  if (code && containerMissing.has(code)) {
    // Someone deleted the table or container under us: not "the entity is absent", and not retryable.
    return new StorageError(`Storage for ${what} is missing (${code}); the table or container was deleted`, status, false, cause);
  }
  if (code && tooLarge.has(code)) return new TooLargeError(`${what} is too large for Table Storage (${code})`);
  switch (status) {
    case 404:
      return new NotFoundError(`${what} was not found`, cause);
    case 409:
      if (code && beingDeleted.has(code)) return new StorageBeingDeletedError(what, status, cause);
      return new ConflictError(`${what} already exists or is in conflict (${code ?? 'conflict'})`, cause);
    case 412:
      return new PreconditionFailedError(`${what} was changed by someone else (ETag mismatch)`, cause);
    case 413:
      return new TooLargeError(`${what} is too large for storage`);
    case 408:
    case 429:
    case undefined:
      // No status: the request never got a response (network); worth retrying.
      return new StorageError(`Storage request for ${what} failed: ${error.message.split('\n')[0] ?? ''}`, status, true, cause);
    default:
      return new StorageError(`Storage request for ${what} failed with ${status}${code ? ` ${code}` : ''}`, status, status >= 500, cause);
  }
}

/** Runs `call`, translating its failure. */
export async function translate<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toSignalboxError(error, what);
  }
}
