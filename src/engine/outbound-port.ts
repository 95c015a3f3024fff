/**
 * @module The engine's port for outbound HTTP: what `invokeExternalService` needs from the outside world.
 * The implementation (allow-list, retries, tokens, limits) lives in src/outbound; hosts and library users
 * pass one as `EngineOptions.http`. Without one, every call is refused (`refusingExternalServiceClient`).
 */

import { redactSecrets } from './redaction';

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
}

export interface ExternalResponse {
  readonly status: number;
  /** Parsed JSON when the body is JSON, else the text (undefined when empty). */
  readonly body: unknown;
}

/** What the processor's `effects.http` is: send one request. */
export interface ExternalServiceClient {
  send(request: ExternalRequest): Promise<ExternalResponse>;
}

/** A refused or failed outbound call. The processor turns it into a fault. */
export class ExternalServiceError extends Error {
  constructor(message: string, readonly status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExternalServiceError';
  }
}

/**
 * The client of an Engine built without one: it refuses every call, so an `invokeExternalService` step
 * faults its instance with this message instead of reaching the network unguarded.
 */
export const refusingExternalServiceClient: ExternalServiceClient = {
  send: (request) =>
    Promise.reject(
      new ExternalServiceError(`no outbound HTTP client is configured, so ${request.method} ${redactSecrets(request.url)} was not sent (pass EngineOptions.http, e.g. createOutboundClient from src/outbound)`),
    ),
};
