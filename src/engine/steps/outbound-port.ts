/**
 * @module The engine's port for outbound HTTP: what `invokeExternalService` needs from the outside world.
 * The implementation (allow-list, retries, tokens, limits) lives in src/outbound; hosts and library users
 * pass one as `EngineOptions.http`. Without one, every call is refused (`refusingExternalServiceClient`).
 */

import type { RetryPolicy } from '../definition/error-handling';
import type { StepError } from '../model/step-error';
import { redactSecrets } from '../model/redaction';

export interface ExternalRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  /** JSON-serialised body (POST only). */
  readonly body?: string;
  /** Per attempt. @default the client's default (10 000 in src/outbound) */
  readonly timeoutInMs?: number;
  /** When set, a managed-identity bearer token for this resource is added (over https only). */
  readonly managedIdentityResource?: string;
  readonly abortSignal?: AbortSignal;
  /**
   * Only the status matters (a subscriber's answer): the body is not read, whatever its size, and the
   * response's `body` is undefined. @default false
   */
  readonly statusOnly?: boolean;
  /**
   * The step's retry policy (error-handling.ts), replacing the client's own retries for this request.
   * Waits that fit within `inPlaceBudgetInMs` (all together) happen in place; the first that does not
   * ends the call with a RetryLaterError, so the instance can wait without holding its lease.
   */
  readonly retry?: StepRetry;
  /**
   * The workflow's rate limits that apply to this call (definition/flow-policies.ts), one bucket each:
   * each attempt waits for a slot in every one, for at most the attempt's time limit, and the wait counts
   * against it; a slot further away than that ends the attempt as a timeout before anything is sent.
   */
  readonly rateLimits?: readonly OutboundRateLimit[];
  /** Told of each wait for a slot, before it (the decision trace lists them). */
  readonly onThrottled?: (throttle: Throttle) => void;
}

/** One rate limit as a call carries it: its bucket (a host or a key's value) and its rule. */
export interface OutboundRateLimit {
  /** `host:<name>` for a limit per host, `key:<value>` for a limit per key: calls naming the same bucket share its slots. */
  readonly bucket: string;
  /** Calls per period (sustained). */
  readonly limit: number;
  readonly periodInMs: number;
  /** Calls that may go at once after a quiet time. */
  readonly burst: number;
}

/** A wait for a slot. */
export interface Throttle {
  readonly bucket: string;
  readonly waitInMs: number;
  readonly rateLimit: OutboundRateLimit;
}

/** A step's retry policy as one call carries it out. */
export interface StepRetry {
  readonly policy: RetryPolicy;
  /** The attempt this call makes first (1, or more when a durable retry resumes the count). */
  readonly firstAttempt: number;
  /** All the waits of this call together may last this long in place. */
  readonly inPlaceBudgetInMs: number;
  /** Told of each wait in place, before it (the decision trace lists them). */
  readonly onRetry?: (retry: { readonly attempt: number; readonly delayInMs: number; readonly error: Omit<StepError, 'stepPath'> }) => void;
}

export interface ExternalResponse {
  readonly status: number;
  /** Parsed JSON when the body is JSON, else the text (undefined when empty). */
  readonly body: unknown;
}

/** What the processor's `effects.http` is: send one request. */
export interface ExternalServiceClient {
  send(request: ExternalRequest): Promise<ExternalResponse>;
  /**
   * Why a request to `url` would be refused before anything is sent (its scheme, a host not on the
   * allow-list), or undefined when it may be sent. Optional: PUT warns with it, a client without it warns of nothing.
   */
  refusal?(url: string): string | undefined;
}

/** A refused or failed outbound call. The processor turns it into a fault. */
export class ExternalServiceError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExternalServiceError';
  }

  /** The service answered 2xx, but not what the step needs (error-handling.ts: type `response`). */
  answered?: boolean;
}

/** An attempt that ran out of time (its body included). */
export class ExternalServiceTimeoutError extends ExternalServiceError {
  constructor(message: string, status?: number, options?: { cause?: unknown }) {
    super(message, status, options);
    this.name = 'ExternalServiceTimeoutError';
  }
}

/**
 * A step's retry policy asks for another attempt after a wait that does not fit in place: the call ends
 * here, and the instance records a pending retry (`attempt` is the one to make next).
 */
export class RetryLaterError extends ExternalServiceError {
  constructor(
    readonly lastError: Omit<StepError, 'stepPath'>,
    readonly attempt: number,
    readonly delayInMs: number,
  ) {
    super(`${lastError.message} (attempt ${attempt - 1} failed; attempt ${attempt} is due in ${delayInMs} ms)`, lastError.status);
    this.name = 'RetryLaterError';
  }
}

/**
 * A call refused by the host's own configuration before anything was sent or connected (a host not on
 * the allow-list, a name resolving to an address that is not allowed, a token over http): not a
 * transient fault, since the same call is refused again until the configuration changes.
 */
export class OutboundRefusedError extends ExternalServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, undefined, options);
    this.name = 'OutboundRefusedError';
  }
}

/**
 * The client of an Engine built without one: it refuses every call, so an `invokeExternalService` step
 * faults its instance with this message instead of reaching the network unguarded.
 */
export const refusingExternalServiceClient: ExternalServiceClient = {
  send: (request) =>
    Promise.reject(
      new OutboundRefusedError(
        `no outbound HTTP client is configured, so ${request.method} ${redactSecrets(request.url)} was not sent (pass EngineOptions.http, e.g. createOutboundClient from src/outbound)`,
      ),
    ),
};
