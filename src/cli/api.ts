/**
 * @module The CLI's one door to the HTTP API: a thin wrapper over the typed client in src/client
 * (openapi-fetch over the types generated from the API's own OpenAPI document, which a test keeps equal
 * to a fresh generation), so a route or a body that drifts from the server fails to compile here.
 * It adds what a command line needs: a timeout, the CLI's errors (ApiError with the problem+json body for
 * an error status, NetworkError when the server cannot be reached), and paging helpers. Routes not yet in
 * the OpenAPI document go through `untypedGet` and say so.
 */
import { createSignalboxClient, type components, type Instance, type Operation, type operations, type SignalboxClient, type Workflow } from '../client';
import type { JsonObject } from '../engine/json';
import { ApiError, NetworkError, type Problem } from './errors';

export interface ApiClientOptions {
  /** The API's base URL, `/api` included, e.g. `http://127.0.0.1:7071/api`. */
  readonly baseUrl: string;
  /** Sent as `x-functions-key` when set. */
  readonly apiKey?: string;
  /** @default 30000 */
  readonly timeoutInMs?: number;
}

type Schemas = components['schemas'];
export type ApiWorkflow = Workflow;
/** An instance; `parent` arrives with child workflows (api.md, wave 2). */
export type ApiInstance = Instance & { readonly parent?: { readonly instanceId: string } };
export type ApiHistoryEntry = Schemas['HistoryEntry'];
export type ApiInstanceResult = Operation['instances'][number];
/** An operation; `progress` arrives with the operations work (api.md, wave 2). */
export type ApiOperation = Operation & { readonly progress?: { readonly total?: number; readonly processed: number } };
export type AcceptedOperation = Schemas['AcceptedOperation'];
export type InstanceStatusName = Instance['status'];
export interface ApiPage<T> {
  readonly items: readonly T[];
  readonly continuationToken?: string;
}
export interface TriggerToSend {
  readonly id?: string;
  readonly name: string;
  readonly subjects?: string[];
  readonly contentType?: string;
  readonly parameters?: JsonObject;
}
/** `status` may name a wave 2 status (`suspended`) and `parentId` is wave 2 too: the server decides. */
export interface InstanceFilter {
  readonly workflowId?: string;
  readonly stateId?: string;
  readonly status?: string;
  readonly subject?: string;
  readonly parentId?: string;
}
type InstanceQuery = NonNullable<operations['listInstances']['parameters']['query']>;
export interface AvailableTriggers {
  readonly status: string;
  readonly items: readonly { transitionId: string; triggerNames: readonly string[]; parameters: unknown; targetStateId: string; timer?: unknown }[];
}

/** What every openapi-fetch call resolves to. */
interface FetchResult<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly client: SignalboxClient;
  private readonly timeoutInMs: number;
  private readonly apiKey: string | undefined;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey || undefined;
    this.timeoutInMs = options.timeoutInMs ?? 30_000;
    this.client = createSignalboxClient({ baseUrl: this.baseUrl, ...(this.apiKey ? { apiKey: this.apiKey } : {}) });
  }

  /** The latest version (or `version`); undefined when the workflow does not exist. */
  async findWorkflow(workflowId: string, options: { version?: number } = {}): Promise<ApiWorkflow | undefined> {
    try {
      return await this.call(() => this.client.GET('/workflows/{workflowId}', { params: { path: { workflowId }, query: { ...(options.version !== undefined ? { version: options.version } : {}) } }, ...this.init() }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** PUT: creates (no `ifMatch`) or adds a version (`ifMatch` = the current ETag). */
  async putWorkflow(workflowId: string, definition: unknown, options: { ifMatch?: string } = {}): Promise<ApiWorkflow & { readonly warnings?: readonly unknown[] }> {
    return this.call(() =>
      this.client.PUT('/workflows/{workflowId}', {
        params: { path: { workflowId }, header: { ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}) } },
        // The file's JSON as it is: the server validates it exactly as `validate` did.
        body: definition as Schemas['WorkflowDefinition'],
        ...this.init(),
      }),
    );
  }

  async createInstance(input: { workflowId: string; instanceId?: string; context?: JsonObject }): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances', { body: input, ...this.init() }));
  }

  async getInstance(instanceId: string): Promise<ApiInstance> {
    return this.call(() => this.client.GET('/instances/{instanceId}', { params: { path: { instanceId } }, ...this.init() }));
  }

  async listInstances(filter: InstanceFilter, page: { continuationToken?: string; maxPageSize?: number } = {}): Promise<ApiPage<ApiInstance>> {
    // The filter may hold what the document does not know yet (see InstanceFilter): sent as given, and a
    // server that does not know it answers 400 naming it.
    const query = { ...filter, ...page } as InstanceQuery;
    return this.call(() => this.client.GET('/instances', { params: { query }, ...this.init() }));
  }

  async instanceHistory(instanceId: string, continuationToken?: string): Promise<ApiPage<ApiHistoryEntry>> {
    return this.call(() => this.client.GET('/instances/{instanceId}/history', { params: { path: { instanceId }, query: { ...(continuationToken ? { continuationToken } : {}) } }, ...this.init() }));
  }

  async cancelInstance(instanceId: string): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances/{instanceId}/cancel', { params: { path: { instanceId } }, ...this.init() }));
  }

  async recoverInstance(instanceId: string, stateId: string): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances/{instanceId}/recover', { params: { path: { instanceId } }, body: { stateId }, ...this.init() }));
  }

  /** `POST /api/triggers`, or the instance-scoped route when `instanceId` is given (the instance is the subject). */
  async sendTrigger(trigger: TriggerToSend, options: { instanceId?: string } = {}): Promise<AcceptedOperation> {
    const { subjects, ...withoutSubjects } = trigger;
    if (options.instanceId !== undefined) {
      const instanceId = options.instanceId;
      return acceptedOf(await this.call(() => this.client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId } }, body: withoutSubjects, ...this.init() })));
    }
    return acceptedOf(await this.call(() => this.client.POST('/triggers', { body: { ...withoutSubjects, subjects: subjects ?? [] }, ...this.init() })));
  }

  /** The operation, and how long the server asks a poller to wait (Retry-After) while it runs. */
  async getOperation(operationId: string): Promise<{ operation: ApiOperation; retryAfterInMs?: number }> {
    const result = await this.send(() => this.client.GET('/operations/{operationId}', { params: { path: { operationId } }, ...this.init() }));
    const retryAfter = Number(result.response.headers.get('retry-after'));
    return { operation: result.data as ApiOperation, ...(result.response.status === 202 && retryAfter > 0 ? { retryAfterInMs: retryAfter * 1000 } : {}) };
  }

  /** `GET /workflows/{id}/diagram` (text/plain): in the wave 2 contract, not yet in the OpenAPI document. */
  async workflowDiagram(workflowId: string, options: { version?: number; instanceId?: string } = {}): Promise<string> {
    return this.untypedGet(`/workflows/${encodeURIComponent(workflowId)}/diagram`, { version: options.version, instanceId: options.instanceId }, 'text');
  }

  /** `GET /instances/{id}/available-triggers`: in the wave 2 contract, not yet in the OpenAPI document. */
  async availableTriggers(instanceId: string): Promise<AvailableTriggers> {
    return JSON.parse(await this.untypedGet(`/instances/${encodeURIComponent(instanceId)}/available-triggers`, {}, 'json')) as AvailableTriggers;
  }

  private init(): { signal: AbortSignal; redirect: 'error' } {
    return { signal: AbortSignal.timeout(this.timeoutInMs), redirect: 'error' };
  }

  /** Runs a typed call; network failures become NetworkError, error statuses ApiError. */
  private async send<T>(call: () => Promise<FetchResult<T>>): Promise<FetchResult<T> & { data: T }> {
    let result: FetchResult<T>;
    try {
      result = await call();
    } catch (error) {
      throw networkError(this.baseUrl, error, this.timeoutInMs);
    }
    if (!result.response.ok) throw apiError(result.response, result.error);
    return result as FetchResult<T> & { data: T };
  }

  private async call<T>(call: () => Promise<FetchResult<T>>): Promise<T> {
    return (await this.send(call)).data;
  }

  private async untypedGet(path: string, query: Record<string, string | number | undefined>, accept: 'text' | 'json'): Promise<string> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: accept === 'text' ? 'text/plain, application/problem+json' : 'application/json, application/problem+json' };
    if (this.apiKey) headers['x-functions-key'] = this.apiKey;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { headers, ...this.init() });
      text = await response.text();
    } catch (error) {
      throw networkError(this.baseUrl, error, this.timeoutInMs);
    }
    if (!response.ok) throw apiError(response, parseJson(text) ?? text);
    return text;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function apiError(response: Response, body: unknown): ApiError {
  const isProblem = body !== null && typeof body === 'object' && /json/.test(response.headers.get('content-type') ?? '');
  return new ApiError(response.status, isProblem ? (body as Problem) : undefined, typeof body === 'string' ? body : '');
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

/**
 * The 202 body of a sent trigger. The routes answer 200 with the finished operation only to a request
 * with `Prefer: wait`, which this client does not send; should one come, it is described the same way.
 */
function acceptedOf(answer: AcceptedOperation | ApiOperation | Schemas['DryRun']): AcceptedOperation {
  if ('operationId' in answer) return answer;
  // 200 is also a dry run's answer, to `?dryRun=true` only, which this call never sends.
  if (!('id' in answer)) throw new Error('the server answered a dry run to a trigger that was not one');
  return { operationId: answer.id, status: answer.status, statusUrl: `/api/operations/${encodeURIComponent(answer.id)}` };
}
