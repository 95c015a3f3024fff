/**
 * @module A small, closed family of errors. The hosts map `code` to an HTTP status in one table
 * (src/host/problem.ts). Faults of a workflow (a failing condition or action) are outcomes, not throws:
 * these are for bad input, missing things, conflicts and port failures.
 */

export interface ValidationIssue {
  /** JSON path of the offending value, e.g. `states.a.transitions[0].targetStateId`. */
  readonly path: string;
  readonly message: string;
}

export type SignalboxErrorCode =
  'validation' | 'definitionInvalid' | 'notFound' | 'conflict' | 'preconditionFailed' | 'leaseUnavailable' | 'leaseLost' | 'tooLarge' | 'unsupportedMediaType' | 'storage' | 'flowQueued' | 'forbidden';

export class SignalboxError extends Error {
  readonly code: SignalboxErrorCode;
  constructor(code: SignalboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Input from outside failed its schema; `issues` lists every problem by path. */
export class ValidationError extends SignalboxError {
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, issues: readonly ValidationIssue[], code: SignalboxErrorCode = 'validation') {
    super(code, message);
    this.issues = issues;
  }
}

/** A workflow definition is invalid as a whole (schema or semantics). */
export class DefinitionInvalidError extends ValidationError {
  constructor(issues: readonly ValidationIssue[]) {
    super(`The workflow definition is invalid (${issues.length} problem${issues.length === 1 ? '' : 's'})`, issues, 'definitionInvalid');
  }
}

export class NotFoundError extends SignalboxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('notFound', message, options);
  }
}

/** The caller is known but may not do this (a human task's four-eyes rule, a task not theirs): 403. */
export class ForbiddenError extends SignalboxError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** The thing exists already, or its state forbids the request (e.g. cancelling a complete instance). */
export class ConflictError extends SignalboxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('conflict', message, options);
  }
}

/**
 * A creation whose key claim was taken over before it committed (InstanceWrite.fences): nothing was written.
 * The engine claims again and answers the holder it finds (UniqueKeyTakenError).
 */
export class CreationFencedError extends ConflictError {}

/** A unique key (`flow.unique`, `uniqueBusinessKey`) is held by another instance, which it names. */
export class UniqueKeyTakenError extends ConflictError {
  constructor(
    message: string,
    readonly existingInstanceId: string,
  ) {
    super(message);
  }
}

/**
 * A creation or recovery into a state with `capacity` that is full for the instance's key: refused, changing
 * nothing (only a trigger waits for room; a request from outside is answered at once).
 */
export class CapacityFullError extends ConflictError {
  constructor(
    message: string,
    readonly stateId: string,
    readonly key: string,
  ) {
    super(message);
  }
}

/** An ETag condition failed: someone else changed the thing since it was read. */
export class PreconditionFailedError extends SignalboxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('preconditionFailed', message, options);
  }
}

/** The lease could not be acquired within the bounded wait. Retryable. */
export class LeaseUnavailableError extends SignalboxError {
  constructor(
    readonly leaseName: string,
    readonly waitedInMs: number,
    options?: { cause?: unknown },
  ) {
    super('leaseUnavailable', `Lease "${leaseName}" was not available after ${waitedInMs} ms`, options);
  }
}

/**
 * A trigger waited the longest its workflow's `concurrency` policy allows for a slot of its key and is
 * handed back to be retried later (never dropped). Retryable. `detail` says where it stood (`queued: customer:42 at 5/5`).
 */
/** A waiter's place in a concurrency queue: higher priority first, then earlier arrival, then id. */
export interface QueuePlace {
  readonly id: string;
  readonly priority: number;
  readonly arrivedAt: string;
}

/** Whether `a` is admitted before `b` in the same queue (the one order of every concurrency queue). */
export function placeGoesBefore(a: QueuePlace, b: QueuePlace): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.arrivedAt !== b.arrivedAt) return a.arrivedAt < b.arrivedAt;
  return a.id < b.id;
}

/**
 * The engine's answer to a trigger that found no concurrency slot and was handed back at once (no lease is
 * held while it waits): queued for `queue`'s key, listed at `place` when its listing was written. Every host
 * schedules it the same way: it tries again later (the local runner parks it, the durable orchestrator waits
 * with a durable timer: decision 0025), and it is applied at most once, when a try finds its slot.
 */
export interface SlotQueuedVerdict {
  /** Where it stood (`queued: customer:42 at 5/5`). */
  readonly detail: string;
  readonly queue?: { readonly workflowId: string; readonly key: string };
  readonly place?: QueuePlace;
}

export class FlowQueuedError extends SignalboxError {
  /** The error that carries `verdict` inside a process (the local runner parks on it: slot-parking.ts). */
  static of(verdict: SlotQueuedVerdict): FlowQueuedError {
    return new FlowQueuedError(verdict.detail, verdict.queue, verdict.place);
  }

  constructor(
    readonly detail: string,
    /** The queue it left: where a caller that parks it (the local runner) waits for a slot to be released. */
    readonly queue?: { readonly workflowId: string; readonly key: string },
    /**
     * Where it is listed in that queue in storage (a parked trigger's listing), so that a caller parking it keeps
     * the storage queue's order among the triggers it parks: after a restart, the triggers it resumes find their
     * old listings, and the first of them must be the first to try again.
     */
    readonly place?: QueuePlace,
  ) {
    super('flowQueued', `${detail}: no concurrency slot within the policy's wait; retry later`);
  }

  /** The verdict as plain data (JSON, for a durable activity's answer). */
  get verdict(): SlotQueuedVerdict {
    return { detail: this.detail, ...(this.queue ? { queue: { workflowId: this.queue.workflowId, key: this.queue.key } } : {}), ...(this.place ? { place: { ...this.place } } : {}) };
  }
}

/** The lease was lost while work held it (a renewal failed or it was broken); the work must not save. */
export class LeaseLostError extends SignalboxError {
  constructor(
    readonly leaseName: string,
    options?: { cause?: unknown },
  ) {
    super('leaseLost', `Lease "${leaseName}" was lost before the work finished`, options);
  }
}

/** A value is larger than the store can hold. */
export class TooLargeError extends SignalboxError {
  constructor(message: string) {
    super('tooLarge', message);
  }
}

/** A storage or network fault. Retryable unless `retryable` is false. */
export class StorageError extends SignalboxError {
  constructor(
    message: string,
    readonly statusCode: number | undefined,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super('storage', message, options);
  }
}

/** Whether a failure of a port is worth retrying (lease contention, lease loss, transient storage faults). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof StorageError) return error.retryable;
  return error instanceof LeaseUnavailableError || error instanceof LeaseLostError || error instanceof PreconditionFailedError || error instanceof FlowQueuedError;
}

/**
 * The `code` of an error this codebase did not make: a Node system error (`EPERM`, `ERR_WORKER_OUT_OF_MEMORY`),
 * one a callback was given (`ERR_SIGNALBOX_ADDRESS_REFUSED`), or JSONata's plain-object errors (`D1011`).
 * Our own errors are told apart by class (`instanceof NotFoundError`, ...), never by this.
 */
export function foreignErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
