/**
 * @module The CLI's one door to the HTTP API (shared/design/api.md): every request the commands make
 * goes through here, so the transport (today `fetch` with types from the engine, later the client
 * generated from the OpenAPI document) changes in this file alone. Errors come out as the CLI's own:
 * ApiError for an error status (with its problem+json), NetworkError when the server cannot be reached.
 */
import type { WorkflowDefinition } from '../engine/definition';
import type { HistoryEntry, Instance } from '../engine/instance';
import type { InstanceResult, Operation } from '../engine/operation';
import type { JsonObject, JsonValue } from '../engine/json';
import { ApiError, NetworkError, type Problem } from './errors';

export interface ApiClientOptions {
  /** The API's base URL, `/api` included, e.g. `http://127.0.0.1:7071/api`. */
  readonly baseUrl: string;
  /** Sent as `x-functions-key` when set. */
  readonly apiKey?: string;
  /** @default 30000 */
  readonly timeoutInMs?: number;
}

export type ApiWorkflow = WorkflowDefinition & { readonly version: number; readonly etag: string };
export type ApiInstance = Omit<Instance, 'appliedTriggerIds' | 'pendingTriggers' | 'historyLength'> & {
  readonly etag: string;
  readonly parent?: { readonly instanceId: string };
};
export type ApiHistoryEntry = Pick<HistoryEntry, 'at' | 'event' | 'triggerId' | 'transitionId' | 'fromStateId' | 'toStateId' | 'status'>;
export type ApiInstanceResult = InstanceResult;
/** An operation as the API shows it; `progress` arrives with the operations work (api.md, wave 2). */
export type ApiOperation = Omit<Operation, 'trigger'> & { readonly progress?: { readonly total?: number; readonly processed: number } };
export interface ApiPage<T> {
  readonly items: readonly T[];
  readonly continuationToken?: string;
}
export interface AcceptedOperation {
  readonly operationId: string;
  readonly status: string;
  readonly statusUrl: string;
}
export interface TriggerToSend {
  readonly id?: string;
  readonly name: string;
  readonly subjects?: readonly string[];
  readonly contentType?: string;
  readonly parameters?: JsonObject;
}
export interface InstanceFilter {
  readonly workflowId?: string;
  readonly stateId?: string;
  readonly status?: string;
  readonly subject?: string;
  readonly parentId?: string;
}
export interface AvailableTriggers {
  readonly status: string;
  readonly items: readonly { transitionId: string; triggerNames: readonly string[]; parameters: JsonValue; targetStateId: string; timer?: JsonValue }[];
}

interface ApiAnswer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

type Query = Record<string, string | number | undefined>;

export class ApiClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutInMs: number;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey || undefined;
    this.timeoutInMs = options.timeoutInMs ?? 30_000;
  }

  /** The latest version (or `version`); undefined when the workflow does not exist. */
  async findWorkflow(workflowId: string, options: { version?: number } = {}): Promise<ApiWorkflow | undefined> {
    try {
      return (await this.request<ApiWorkflow>('GET', `/workflows/${enc(workflowId)}`, { query: { version: options.version } })).body;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** PUT: creates (no `ifMatch`) or adds a version (`ifMatch` = the current ETag). */
  async putWorkflow(workflowId: string, definition: unknown, options: { ifMatch?: string } = {}): Promise<ApiWorkflow & { warnings?: readonly unknown[] }> {
    const headers = options.ifMatch ? { 'if-match': options.ifMatch } : undefined;
    return (await this.request<ApiWorkflow>('PUT', `/workflows/${enc(workflowId)}`, { json: definition, headers })).body;
  }

  async workflowDiagram(workflowId: string, options: { version?: number; instanceId?: string } = {}): Promise<string> {
    return (await this.request<string>('GET', `/workflows/${enc(workflowId)}/diagram`, { query: { version: options.version, instanceId: options.instanceId }, text: true })).body;
  }

  async createInstance(input: { workflowId: string; instanceId?: string; context?: JsonObject }): Promise<ApiInstance> {
    return (await this.request<ApiInstance>('POST', '/instances', { json: input })).body;
  }

  async getInstance(instanceId: string): Promise<ApiInstance> {
    return (await this.request<ApiInstance>('GET', `/instances/${enc(instanceId)}`)).body;
  }

  async listInstances(filter: InstanceFilter, page: { continuationToken?: string; maxPageSize?: number } = {}): Promise<ApiPage<ApiInstance>> {
    return (await this.request<ApiPage<ApiInstance>>('GET', '/instances', { query: { ...filter, ...page } })).body;
  }

  async instanceHistory(instanceId: string, continuationToken?: string): Promise<ApiPage<ApiHistoryEntry>> {
    return (await this.request<ApiPage<ApiHistoryEntry>>('GET', `/instances/${enc(instanceId)}/history`, { query: { continuationToken } })).body;
  }

  async availableTriggers(instanceId: string): Promise<AvailableTriggers> {
    return (await this.request<AvailableTriggers>('GET', `/instances/${enc(instanceId)}/available-triggers`)).body;
  }

  async cancelInstance(instanceId: string): Promise<ApiInstance> {
    return (await this.request<ApiInstance>('POST', `/instances/${enc(instanceId)}/cancel`)).body;
  }

  async recoverInstance(instanceId: string, stateId: string): Promise<ApiInstance> {
    return (await this.request<ApiInstance>('POST', `/instances/${enc(instanceId)}/recover`, { json: { stateId } })).body;
  }

  /** `POST /api/triggers`, or the instance-scoped route when `instanceId` is given (the instance is the subject). */
  async sendTrigger(trigger: TriggerToSend, options: { instanceId?: string } = {}): Promise<AcceptedOperation> {
    const path = options.instanceId === undefined ? '/triggers' : `/instances/${enc(options.instanceId)}/triggers`;
    return (await this.request<AcceptedOperation>('POST', path, { json: trigger })).body;
  }

  /** The operation, and how long the server asks a poller to wait (Retry-After) while it runs. */
  async getOperation(operationId: string): Promise<{ operation: ApiOperation; retryAfterInMs?: number }> {
    const answer = await this.request<ApiOperation>('GET', `/operations/${enc(operationId)}`);
    const retryAfter = Number(answer.headers.get('retry-after'));
    return { operation: answer.body, ...(answer.status === 202 && retryAfter > 0 ? { retryAfterInMs: retryAfter * 1000 } : {}) };
  }

  private async request<T>(
    method: string,
    path: string,
    options: { query?: Query; json?: unknown; headers?: Record<string, string> | undefined; text?: boolean } = {},
  ): Promise<ApiAnswer<T>> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: options.text ? 'text/plain, application/problem+json' : 'application/json, application/problem+json', ...options.headers };
    if (this.apiKey) headers['x-functions-key'] = this.apiKey;
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutInMs),
      });
      text = await response.text();
    } catch (error) {
      throw networkError(this.baseUrl, error, this.timeoutInMs);
    }
    if (!response.ok) throw new ApiError(response.status, parseProblem(text, response.headers), text);
    if (options.text) return { status: response.status, headers: response.headers, body: text as T };
    try {
      return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
    } catch {
      throw new ApiError(response.status, { title: 'The server answered with something that is not JSON', detail: text.slice(0, 200) });
    }
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function parseProblem(text: string, headers: Headers): Problem | undefined {
  if (!/json/.test(headers.get('content-type') ?? '')) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    return body !== null && typeof body === 'object' ? (body as Problem) : undefined;
  } catch {
    return undefined;
  }
}

/** A message that says what could not be reached and why (fetch's own is only "fetch failed"). */
function networkError(baseUrl: string, error: unknown, timeoutInMs: number): NetworkError {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new NetworkError(`${baseUrl} did not answer within ${timeoutInMs / 1000} s`, { cause: error });
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: string } | undefined)?.code;
  const reason = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new NetworkError(`cannot reach the Signalbox API at ${baseUrl} (${reason}); is the server running? Set --url or SIGNALBOX_URL`, { cause: error });
}
