/**
 * @module The console's view of the Signalbox API: one method per route it uses, over the typed client
 * the CLI uses (src/client: openapi-fetch on the types generated from the OpenAPI document), so every
 * path, parameter and body is checked against the API's own description. Every call carries the key
 * (`x-functions-key`) when one is set, or the signed-in user's access token (`Authorization: Bearer`)
 * instead, and every failure is an ApiError holding the problem+json. A tenant's calls go below
 * `/api/tenants/{tenantId}/`; who the caller is and the tenants admin API belong to the deployment and
 * stay at `/api/`, so they answer whichever tenant is picked (even one being deleted).
 */
import { z } from 'zod/mini';
import {
  acceptedFromAnswer,
  createSignalboxClient,
  dryRunFromAnswer,
  problemFromAnswer,
  type AcceptedOperation,
  type AvailableTriggers,
  type BulkRequest,
  type CreateInstanceRequest,
  type DryRun,
  type HistoryEntry,
  type Instance,
  type InstanceCountQuery,
  type InstanceCounts,
  type InstanceFilter,
  type InstanceTrigger,
  type LifecycleEvent,
  type ListedOperation,
  type Offer,
  type Operation,
  type OperationFilter,
  type Page,
  type Tenant,
  type TenantDeletion,
  type TenantInput,
  type WaitingAnswer,
  type WaitingSummary,
  type Workflow,
  type WorkflowSummary,
  type WorkflowCost,
  type components,
} from '../../../src/client';
import { ApiError } from './api-error';

/** Who the server takes the caller for: the actor its changes are recorded with, and the tenants it may use. */
export type Identity = components['schemas']['Caller'];

/** The role that administers tenants (no other role grants it). */
export const TENANT_ADMIN_ROLE = 'Signalbox.TenantAdmin';
/** One key of a workflow's flow control: what runs, what waits, the limit in force and its overrides. */
export type FlowKey = components['schemas']['FlowKey'];

/** How the console signs in (GET /api/console-config), checked before it is used: it decides where the browser is sent. */
const consoleConfigSchema = z.object({
  signIn: z.optional(
    z.object({
      authority: z.url({ protocol: /^https?$/ }),
      clientId: z.string().check(z.minLength(1)),
      scope: z.string().check(z.minLength(1)),
    }),
  ),
  keys: z.boolean(),
});
export type ConsoleConfig = z.infer<typeof consoleConfigSchema>;

export interface ConsoleApi {
  /** Where the console signs in and whether keys are on; asked without credentials. */
  getConsoleConfig(): Promise<ConsoleConfig>;
  /** Who the server takes the caller for (its name and roles). */
  whoAmI(): Promise<Identity>;
  listWorkflows(continuationToken?: string): Promise<Page<WorkflowSummary>>;
  getWorkflow(workflowId: string, version?: number): Promise<Workflow>;
  getDiagram(workflowId: string, options?: { version?: number; instanceId?: string }): Promise<string>;
  listInstances(filter: InstanceFilter, continuationToken?: string, maxPageSize?: number): Promise<Page<Instance>>;
  /** Instances of a workflow matching a filter expression over its search fields (README, "Finding instances"). */
  searchInstances(workflowId: string, filter: string, continuationToken?: string, maxPageSize?: number): Promise<Page<Instance>>;
  /** How many instances of a workflow match, per group with `groupBy` (GET /api/instance-counts). */
  countInstances(query: InstanceCountQuery): Promise<InstanceCounts>;
  getInstance(instanceId: string): Promise<Instance>;
  getHistory(instanceId: string): Promise<Page<HistoryEntry>>;
  getAvailableTriggers(instanceId: string): Promise<AvailableTriggers>;
  /** Why the instance is not moving: every reason, the primary first. */
  getInstanceWaiting(instanceId: string): Promise<WaitingAnswer>;
  /** The workflow's instances that are not final, counted per class and state. */
  getWorkflowWaiting(workflowId: string): Promise<WaitingSummary>;
  /** What the workflow's operations cost, the last 30 days (the server's default), per day (decision 0021). */
  getWorkflowCost(workflowId: string): Promise<WorkflowCost>;
  /** One concurrency key of a workflow: running, queued in admission order, next release, limit and its audit. */
  getFlowKey(workflowId: string, key: string): Promise<FlowKey>;
  /** Overrides the key's limit at run time (Admin); null removes the override. */
  setFlowKeyLimit(workflowId: string, key: string, limit: number | null): Promise<FlowKey>;
  sendInstanceTrigger(instanceId: string, trigger: InstanceTrigger): Promise<AcceptedOperation>;
  dryRunInstanceTrigger(instanceId: string, trigger: InstanceTrigger): Promise<DryRun>;
  /** `contextPatch`: a JSON Merge Patch of the context, applied before the state is entered. */
  recoverInstance(instanceId: string, stateId: string, contextPatch?: Record<string, unknown>): Promise<Instance>;
  /** Applies again, exactly once, the trigger that faulted the instance (an operation; 409 naming why it cannot). */
  retryInstance(instanceId: string): Promise<AcceptedOperation>;
  /** Triggers recently offered to the instance that changed nothing, newest first. */
  getOffers(instanceId: string): Promise<{ items: readonly Offer[] }>;
  /** Operations newest first, without their per-instance results. */
  listOperations(filter: OperationFilter, continuationToken?: string, maxPageSize?: number): Promise<Page<ListedOperation>>;
  cancelInstance(instanceId: string): Promise<Instance>;
  suspendInstance(instanceId: string): Promise<Instance>;
  resumeInstance(instanceId: string): Promise<Instance>;
  /** The instance's lifecycle events with their deliveries (only events some subscription wants are recorded). */
  getEvents(instanceId: string): Promise<Page<LifecycleEvent>>;
  /** Sets an event's dead-lettered deliveries back to pending and delivers them again (202). */
  redeliverEvent(instanceId: string, eventId: string): Promise<{ eventId: string }>;
  getOperation(operationId: string): Promise<Operation>;
  /** Starts an instance of the workflow's latest version (201 the instance). */
  createInstance(input: CreateInstanceRequest): Promise<Instance>;
  /** Acts on every instance the filter matches (202 an operation). */
  bulkInstances(input: BulkRequest): Promise<AcceptedOperation>;
  /** Every tenant, `default` first (Signalbox.TenantAdmin). */
  listTenants(): Promise<{ items: Tenant[] }>;
  /** Provisions a tenant (in the deployment's account unless `input.storage` names its own); answers when it is ready to use. */
  createTenant(tenantId: string, input?: TenantInput): Promise<Tenant>;
  /** Starts offboarding (202): the tenant is listed, with its `deletion`, until nothing of it is left. */
  deleteTenant(tenantId: string): Promise<TenantDeletion>;
}

export interface HttpConsoleApiOptions {
  /** Where the API lives, e.g. `http://127.0.0.1:7071/api`. */
  baseUrl: string;
  /** Read on every call, so a key entered later applies at once. */
  apiKey: () => string | undefined;
  /** The signed-in user's access token for the API, read on every call; when there is one the key is not sent. */
  accessToken?: () => string | undefined;
  fetch?: typeof fetch;
  /** The tenant the pages' calls are for. @default the default tenant (`/api/...`) */
  tenant?: string;
}

/** The answer's data, or the ApiError for its problem. */
async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(problemFromAnswer(error, response));
  // openapi-fetch leaves `data` undefined only for an error answer (handled above) or an empty body (204, none here).
  return data as T;
}

export function createHttpConsoleApi(options: HttpConsoleApiOptions): ConsoleApi {
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const credentials = {
    onRequest({ request, schemaPath }: { request: Request; schemaPath: string }) {
      // The sign-in settings are asked for before any credential exists, and need none.
      if (schemaPath === '/console-config') return request;
      const token = options.accessToken?.();
      const key = options.apiKey();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      else if (key) request.headers.set('x-functions-key', key);
      return request;
    },
  };
  const client = createSignalboxClient({ baseUrl: options.baseUrl, fetch: (request: Request) => fetchImpl(request), ...(options.tenant ? { tenant: options.tenant } : {}) });
  client.use(credentials);
  const deploymentClient = createSignalboxClient({ baseUrl: options.baseUrl, fetch: (request: Request) => fetchImpl(request) });
  deploymentClient.use(credentials);
  const orUndefined = <T>(value: T | '' | undefined): T | undefined => (value === '' ? undefined : value);

  return {
    async getConsoleConfig() {
      const answer = await unwrap(client.GET('/console-config'));
      const parsed = consoleConfigSchema.safeParse(answer);
      if (!parsed.success) throw new Error(`The console configuration is not valid: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`);
      return parsed.data;
    },
    whoAmI: () => unwrap(deploymentClient.GET('/me')),
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
    searchInstances: (workflowId, filter, continuationToken, maxPageSize) =>
      unwrap(client.GET('/instances', { params: { query: { workflowId, filter: orUndefined(filter), continuationToken, maxPageSize } } })),
    countInstances: (query) => unwrap(client.GET('/instance-counts', { params: { query } })),
    getInstance: (instanceId) => unwrap(client.GET('/instances/{instanceId}', { params: { path: { instanceId } } })),
    getHistory: (instanceId) => unwrap(client.GET('/instances/{instanceId}/history', { params: { path: { instanceId } } })),
    getAvailableTriggers: (instanceId) => unwrap(client.GET('/instances/{instanceId}/available-triggers', { params: { path: { instanceId } } })),
    getInstanceWaiting: (instanceId) => unwrap(client.GET('/instances/{instanceId}/waiting', { params: { path: { instanceId } } })),
    getWorkflowWaiting: (workflowId) => unwrap(client.GET('/workflows/{workflowId}/waiting', { params: { path: { workflowId } } })),
    getWorkflowCost: (workflowId) => unwrap(client.GET('/workflows/{workflowId}/cost', { params: { path: { workflowId } } })),
    getFlowKey: (workflowId, key) => unwrap(client.GET('/flow/{workflowId}/keys/{key}', { params: { path: { workflowId, key } } })),
    setFlowKeyLimit: (workflowId, key, limit) => unwrap(client.PUT('/flow/{workflowId}/keys/{key}/limit', { params: { path: { workflowId, key } }, body: { limit } })),
    sendInstanceTrigger: (instanceId, trigger) => unwrap(client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId } }, body: trigger })).then(acceptedFromAnswer),
    dryRunInstanceTrigger: (instanceId, trigger) =>
      unwrap(client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId }, query: { dryRun: 'true' } }, body: trigger })).then(dryRunFromAnswer),
    recoverInstance: (instanceId, stateId, contextPatch) =>
      unwrap(
        client.POST('/instances/{instanceId}/recover', {
          params: { path: { instanceId } },
          body: { stateId, ...(contextPatch ? { context: contextPatch as never /* the console's JSON is unknown-typed; the API checks it */ } : {}) },
        }),
      ),
    retryInstance: (instanceId) => unwrap(client.POST('/instances/{instanceId}/retry', { params: { path: { instanceId } } })).then(acceptedFromAnswer),
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
    redeliverEvent: (instanceId, eventId) => unwrap(client.POST('/instances/{instanceId}/events/{eventId}/redeliver', { params: { path: { instanceId, eventId } } })),
    getOperation: (operationId) => unwrap(client.GET('/operations/{operationId}', { params: { path: { operationId } } })),
    // openapi-fetch sends a JSON body with `content-type: application/json`.
    createInstance: (input) => unwrap(client.POST('/instances', { body: input })),
    bulkInstances: (input) => unwrap(client.POST('/instances/bulk', { body: input })).then(acceptedFromAnswer),
    listTenants: () => unwrap(deploymentClient.GET('/tenants')),
    createTenant: (tenantId, input = {}) => unwrap(deploymentClient.PUT('/tenants/{tenantId}', { params: { path: { tenantId } }, body: input })),
    deleteTenant: (tenantId) => unwrap(deploymentClient.DELETE('/tenants/{tenantId}', { params: { path: { tenantId } } })),
  };
}
