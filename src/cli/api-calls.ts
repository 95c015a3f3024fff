/**
 * @module The CLI's calls through the typed client (api.ts builds every route on it): the client itself,
 * made with the CLI's options (key, token or sign-in, tenant, a bounded response body), a timeout per
 * request, and the translation of failures into the CLI's errors (NetworkError when the server cannot be
 * reached or answers too much, ApiError with the problem+json body for an error status).
 */
import { createSignalboxClient, type SignalboxClient } from '../client';
import { NetworkError } from './errors';
import { ResponseTooLargeError, apiError, boundedFetch, formatBytes, networkError } from './http-transport';

export interface ApiClientOptions {
  /** The API's base URL, `/api` included, e.g. `http://127.0.0.1:7071/api`. */
  readonly baseUrl: string;
  /** Sent as `x-functions-key` when set. */
  readonly apiKey?: string;
  /** Sent as `Authorization: Bearer` when set. */
  readonly token?: string;
  /** The tenant every call is for (`--tenant`). @default the default tenant */
  readonly tenant?: string;
  /** Asked for a token before each request when there is no `token` (the CLI's own sign-in, sign-in.ts). */
  readonly getToken?: () => Promise<string>;
  /** For each request, its response body included. @default 30000 */
  readonly timeoutInMs?: number;
  /** @default MAX_RESPONSE_BODY_BYTES */
  readonly maxResponseBodyBytes?: number;
}

/**
 * The most a response body may hold (16 MiB): a larger answer is refused as it arrives, never buffered.
 * The API's largest answers (a page of 1,000 instances, an operation's results) are far smaller.
 */
export const MAX_RESPONSE_BODY_BYTES = 16 * 1024 * 1024;
/** What every openapi-fetch call resolves to. */
interface FetchResult<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

export abstract class TypedApiCalls {
  readonly baseUrl: string;
  protected readonly client: SignalboxClient;
  private readonly timeoutInMs: number;
  private readonly maxResponseBodyBytes: number;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutInMs = options.timeoutInMs ?? 30_000;
    this.maxResponseBodyBytes = options.maxResponseBodyBytes ?? MAX_RESPONSE_BODY_BYTES;
    this.client = createSignalboxClient({
      baseUrl: this.baseUrl,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.token ? { token: options.token } : {}),
      ...(options.tenant ? { tenant: options.tenant } : {}),
      fetch: boundedFetch(this.maxResponseBodyBytes),
    });
    const { getToken } = options;
    if (!options.token && getToken) {
      this.client.use({
        async onRequest({ request }) {
          request.headers.set('authorization', `Bearer ${await getToken()}`);
          return request;
        },
      });
    }
  }

  protected init(): { signal: AbortSignal; redirect: 'error' } {
    return { signal: AbortSignal.timeout(this.timeoutInMs), redirect: 'error' };
  }

  /** Runs a typed call; network failures become NetworkError, error statuses ApiError. */
  protected async send<T>(call: () => Promise<FetchResult<T>>): Promise<FetchResult<T> & { data: T }> {
    let result: FetchResult<T>;
    try {
      result = await call();
    } catch (error) {
      if (error instanceof ResponseTooLargeError)
        throw new NetworkError(`${this.baseUrl} answered with a body larger than ${formatBytes(error.limitInBytes)}, the most the CLI reads`, { cause: error });
      throw networkError(this.baseUrl, error, this.timeoutInMs);
    }
    if (!result.response.ok) throw apiError(result.response, result.error);
    return result as FetchResult<T> & { data: T };
  }

  protected async call<T>(call: () => Promise<FetchResult<T>>): Promise<T> {
    return (await this.send(call)).data;
  }
}
