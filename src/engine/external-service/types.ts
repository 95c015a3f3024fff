/** @module The outbound request/response model of invokeExternalService and the policy contract. */

export interface ExternalRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  /** JSON-serialised body (POST only). */
  readonly body?: string;
  /** @default the client's defaultTimeoutInMs (10 000) */
  readonly timeoutInMs?: number;
  /** When set, a managed-identity bearer token for this resource is added. */
  readonly managedIdentityResource?: string;
  readonly abortSignal?: AbortSignal;
}

export interface ExternalResponse {
  readonly status: number;
  /** Parsed JSON when the body is JSON, else the text (undefined when empty). */
  readonly body: unknown;
}

/** One step of the outbound pipeline, in the Azure SDK's `{ name, sendRequest(req, next) }` shape. */
export interface ExternalPolicy {
  readonly name: string;
  sendRequest(request: ExternalRequest, next: (request: ExternalRequest) => Promise<ExternalResponse>): Promise<ExternalResponse>;
}

/** What the processor's `effects.http` is: send one request through the pipeline. */
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
