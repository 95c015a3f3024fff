/**
 * @module The console's view of the Signalbox API: one method per route it uses, over the typed client
 * the CLI uses (src/client: openapi-fetch on the types generated from the OpenAPI document), so every
 * path, parameter and body is checked against the API's own description. Every call carries the key
 * (`x-functions-key`) when one is set, and every failure is an ApiError holding the problem+json.
 */
import { createSignalboxClient, type operations } from '../../../src/client';
import { ApiError } from './api-error';
import { capabilitiesFrom, type Capabilities } from './capabilities';
import type {
  Accepted,
  AvailableTriggers,
  DryRunResult,
  HistoryEntry,
  Instance,
  InstanceFilter,
  LifecycleEvent,
  Offer,
  Operation,
  OperationFilter,
  Page,
  Problem,
  TriggerInput,
  Workflow,
  WorkflowSummary,
} from './types';

/** `POST /api/instances`'s body and `POST /api/instances/bulk`'s, as the API describes them (the generated client types). */
export type CreateInstanceInput = operations['createInstance']['requestBody']['content']['application/json'];
export type BulkInput = operations['bulkInstances']['requestBody']['content']['application/json'];

export interface ConsoleApi {
  capabilities(): Promise<Capabilities>;
  listWorkflows(continuationToken?: string): Promise<Page<WorkflowSummary>>;
  getWorkflow(workflowId: string, version?: number): Promise<Workflow>;
  getDiagram(workflowId: string, options?: { version?: number; instanceId?: string }): Promise<string>;
  listInstances(filter: InstanceFilter, continuationToken?: string, maxPageSize?: number): Promise<Page<Instance>>;
  getInstance(instanceId: string): Promise<Instance>;
  getHistory(instanceId: string): Promise<Page<HistoryEntry>>;
  getAvailableTriggers(instanceId: string): Promise<AvailableTriggers>;
  sendInstanceTrigger(instanceId: string, trigger: TriggerInput): Promise<Accepted>;
  dryRunInstanceTrigger(instanceId: string, trigger: TriggerInput): Promise<DryRunResult>;
  /** `contextPatch`: a JSON Merge Patch of the context, applied before the state is entered. */
  recoverInstance(instanceId: string, stateId: string, contextPatch?: Record<string, unknown>): Promise<Instance>;
  /** Triggers recently offered to the instance that changed nothing, newest first. */
  getOffers(instanceId: string): Promise<{ items: Offer[] }>;
  /** Operations newest first, without their per-instance results. */
  listOperations(filter: OperationFilter, continuationToken?: string, maxPageSize?: number): Promise<Page<Operation>>;
  cancelInstance(instanceId: string): Promise<Instance>;
  suspendInstance(instanceId: string): Promise<Instance>;
  resumeInstance(instanceId: string): Promise<Instance>;
  /** The instance's lifecycle events with their deliveries (only events some subscription wants are recorded). */
  getEvents(instanceId: string): Promise<Page<LifecycleEvent>>;
  /** Sets an event's dead-lettered deliveries back to pending and delivers them again (202). */
  redeliverEvent(instanceId: string, eventId: string): Promise<{ eventId: string }>;
  getOperation(operationId: string): Promise<Operation>;
  /** Starts an instance of the workflow's latest version (201 the instance). */
  createInstance(input: CreateInstanceInput): Promise<Instance>;
  /** Acts on every instance the filter matches (202 an operation). */
  bulkInstances(input: BulkInput): Promise<Accepted>;
}

export interface HttpConsoleApiOptions {
  /** Where the API lives, e.g. `http://127.0.0.1:7071/api`. */
  baseUrl: string;
  /** Read on every call, so a key entered later applies at once. */
  apiKey: () => string | undefined;
  fetch?: typeof fetch;
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && typeof (value as Problem).title === 'string';
}

/** The error of an answer that was not 2xx: its problem+json, or one made from whatever it held. */
function apiError(error: unknown, response: Response): ApiError {
  if (isProblem(error)) return new ApiError({ ...error, status: error.status ?? response.status });
  const text = typeof error === 'string' ? error : error === undefined ? '' : JSON.stringify(error);
  return new ApiError({ title: response.statusText || 'Request failed', status: response.status, detail: text.slice(0, 500) || undefined });
}

/** The answer's data, or the ApiError for its problem. */
async function unwrap<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw apiError(error, response);
  return data as T;
}

export function createHttpConsoleApi(options: HttpConsoleApiOptions): ConsoleApi {
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const client = createSignalboxClient({ baseUrl: options.baseUrl, fetch: (request: Request) => fetchImpl(request) });
  client.use({
    onRequest({ request }) {
      const key = options.apiKey();
      if (key) request.headers.set('x-functions-key', key);
      return request;
    },
  });
  let capabilities: Promise<Capabilities> | undefined;

  const orUndefined = <T>(value: T | '' | undefined): T | undefined => (value === '' ? undefined : value);

  return {
    capabilities() {
      // Fetched once per page load; a failure is not cached, so a later call tries again.
      capabilities ??= unwrap<unknown>(client.GET('/openapi.json')).then(capabilitiesFrom, (error: unknown) => {
        capabilities = undefined;
        throw error;
      });
      return capabilities;
    },
    listWorkflows: (continuationToken) => unwrap(client.GET('/workflows', { params: { query: { continuationToken } } })),
    getWorkflow: (workflowId, version) => unwrap(client.GET('/workflows/{workflowId}', { params: { path: { workflowId }, query: { version } } })),
    getDiagram: (workflowId, diagramOptions = {}) =>
      unwrap<string>(
        client.GET('/workflows/{workflowId}/diagram', {
          params: { path: { workflowId }, query: { version: diagramOptions.version, instanceId: diagramOptions.instanceId } },
          parseAs: 'text',
        }),
      ),
    listInstances: (filter, continuationToken, maxPageSize) =>
      unwrap(
        client.GET('/instances', {
          params: {
            query: {
              workflowId: orUndefined(filter.workflowId),
              stateId: orUndefined(filter.stateId),
              status: orUndefined(filter.status),
              subject: orUndefined(filter.subject),
              parentId: orUndefined(filter.parentId),
              continuationToken,
              maxPageSize,
            },
          },
        }),
      ),
    getInstance: (instanceId) => unwrap(client.GET('/instances/{instanceId}', { params: { path: { instanceId } } })),
    getHistory: (instanceId) => unwrap(client.GET('/instances/{instanceId}/history', { params: { path: { instanceId } } })),
    getAvailableTriggers: (instanceId) => unwrap(client.GET('/instances/{instanceId}/available-triggers', { params: { path: { instanceId } } })),
    sendInstanceTrigger: (instanceId, trigger) =>
      unwrap(client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId } }, body: trigger })),
    // 200 with ?dryRun=true is always the DryRun (the Operation is the 200 of a `Prefer: wait` send).
    dryRunInstanceTrigger: (instanceId, trigger) =>
      unwrap<DryRunResult>(client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId }, query: { dryRun: 'true' } }, body: trigger })),
    recoverInstance: (instanceId, stateId, contextPatch) =>
      unwrap(client.POST('/instances/{instanceId}/recover', { params: { path: { instanceId } }, body: { stateId, ...(contextPatch ? { context: contextPatch as never /* the console's JSON is unknown-typed; the API checks it */ } : {}) } })),
    getOffers: (instanceId) => unwrap(client.GET('/instances/{instanceId}/offers', { params: { path: { instanceId } } })),
    listOperations: (filter, continuationToken, maxPageSize) =>
      unwrap(
        client.GET('/operations', {
          params: { query: { kind: orUndefined(filter.kind), status: orUndefined(filter.status), workflowId: orUndefined(filter.workflowId), continuationToken, maxPageSize } },
        }),
      ),
    cancelInstance: (instanceId) => unwrap(client.POST('/instances/{instanceId}/cancel', { params: { path: { instanceId } } })),
    suspendInstance: (instanceId) => unwrap(client.POST('/instances/{instanceId}/suspend', { params: { path: { instanceId } } })),
    resumeInstance: (instanceId) => unwrap(client.POST('/instances/{instanceId}/resume', { params: { path: { instanceId } } })),
    getEvents: (instanceId) => unwrap(client.GET('/instances/{instanceId}/events', { params: { path: { instanceId } } })),
    redeliverEvent: (instanceId, eventId) =>
      unwrap(client.POST('/instances/{instanceId}/events/{eventId}/redeliver', { params: { path: { instanceId, eventId } } })),
    getOperation: (operationId) => unwrap(client.GET('/operations/{operationId}', { params: { path: { operationId } } })),
    // openapi-fetch sends a JSON body with `content-type: application/json`.
    createInstance: (input) => unwrap(client.POST('/instances', { body: input })),
    bulkInstances: (input) => unwrap(client.POST('/instances/bulk', { body: input })),
  };
}
