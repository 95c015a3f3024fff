/**
 * @module The CLI's one door to the HTTP API: a thin wrapper over the typed client in src/client
 * (openapi-fetch over the types generated from the API's own OpenAPI document, which a test keeps equal
 * to a fresh generation), so a route or a body that drifts from the server fails to compile here.
 * It adds what a command line needs: a timeout, the CLI's errors (ApiError with the problem+json body for
 * an error status, NetworkError when the server cannot be reached; both in api-calls.ts), and paging
 * helpers. Every route goes through the typed client: there is no hand-written URL here.
 */
import {
  acceptedFromAnswer,
  dryRunFromAnswer,
  type AcceptedOperation,
  type AvailableTriggers,
  type BulkDryRun,
  type BulkRequest,
  type InstanceFilter,
  type InstanceSearch,
  type InstanceCountQuery,
  type InstanceCounts,
  type MigrationReport,
  type MigrationRequest,
  type OperationFilter,
  type operations,
  type Schemas,
  type WaitingAnswer,
  type WaitingSummary,
  type Tenant,
  type TenantDeletion,
  type TenantInput,
} from '../client';
import type { JsonObject } from '../engine/model';
import { ApiError } from './errors';
import { TypedApiCalls } from './api-calls';
import type { ApiDryRun, ApiHistoryEntry, ApiInstance, ApiListedOperation, ApiOperation, ApiPage, ApiWorkflow, TriggerToSend } from './api-shapes';

export * from './api-shapes';

export { MAX_RESPONSE_BODY_BYTES, type ApiClientOptions } from './api-calls';

type InstanceQuery = NonNullable<operations['listInstances']['parameters']['query']>;
type OperationQuery = NonNullable<operations['listOperations']['parameters']['query']>;

export class ApiClient extends TypedApiCalls {
  /** Who the API takes the caller for. */
  async whoAmI(): Promise<Schemas['Actor']> {
    return this.call(() => this.client.GET('/me', { ...this.init() }));
  }

  /** The latest version (or `version`); undefined when the workflow does not exist. */
  async findWorkflow(workflowId: string, options: { version?: number } = {}): Promise<ApiWorkflow | undefined> {
    try {
      return await this.call(() =>
        this.client.GET('/workflows/{workflowId}', { params: { path: { workflowId }, query: { ...(options.version !== undefined ? { version: options.version } : {}) } }, ...this.init() }),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * PUT: creates (no `ifMatch`) or adds a version (`ifMatch` = the current ETag); a definition equal to
   * the latest version's answers the latest as it is, unless `force`.
   */
  async putWorkflow(workflowId: string, definition: unknown, options: { ifMatch?: string; force?: boolean } = {}): Promise<ApiWorkflow & { readonly warnings?: readonly unknown[] }> {
    return this.call(() =>
      this.client.PUT('/workflows/{workflowId}', {
        params: { path: { workflowId }, query: { ...(options.force ? { force: 'true' as const } : {}) }, header: { ...(options.ifMatch ? { 'If-Match': options.ifMatch } : {}) } },
        // The file's JSON as it is: the server validates it exactly as `validate` did.
        body: definition as Schemas['WorkflowDefinition'],
        ...this.init(),
      }),
    );
  }

  async createInstance(input: { workflowId: string; instanceId?: string; context?: JsonObject; businessKey?: string }): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances', { body: input, ...this.init() }));
  }

  async getInstance(instanceId: string): Promise<ApiInstance> {
    return this.call(() => this.client.GET('/instances/{instanceId}', { params: { path: { instanceId } }, ...this.init() }));
  }

  async listInstances(filter: InstanceFilter, page: { continuationToken?: string; maxPageSize?: number } = {}): Promise<ApiPage<ApiInstance>> {
    const query: InstanceQuery = { ...filter, ...page };
    return this.call(() => this.client.GET('/instances', { params: { query }, ...this.init() }));
  }

  /** Instances of a workflow matching a filter (one page). */
  async searchInstances(search: InstanceSearch, page: { continuationToken?: string; maxPageSize?: number } = {}): Promise<ApiPage<ApiInstance>> {
    const query: InstanceQuery = { ...search, ...page };
    return this.call(() => this.client.GET('/instances', { params: { query }, ...this.init() }));
  }

  /** How many instances of a workflow match a filter, optionally per group. */
  async countInstances(query: InstanceCountQuery): Promise<InstanceCounts> {
    return this.call(() => this.client.GET('/instance-counts', { params: { query }, ...this.init() }));
  }

  async listOperations(filter: OperationFilter, page: { continuationToken?: string; maxPageSize?: number } = {}): Promise<ApiPage<ApiListedOperation>> {
    const query: OperationQuery = { ...filter, ...page };
    return this.call(() => this.client.GET('/operations', { params: { query }, ...this.init() }));
  }

  async instanceHistory(instanceId: string, continuationToken?: string): Promise<ApiPage<ApiHistoryEntry>> {
    return this.call(() => this.client.GET('/instances/{instanceId}/history', { params: { path: { instanceId }, query: { ...(continuationToken ? { continuationToken } : {}) } }, ...this.init() }));
  }

  async cancelInstance(instanceId: string): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances/{instanceId}/cancel', { params: { path: { instanceId } }, ...this.init() }));
  }

  async recoverInstance(instanceId: string, stateId: string, contextPatch?: JsonObject): Promise<ApiInstance> {
    return this.call(() =>
      this.client.POST('/instances/{instanceId}/recover', { params: { path: { instanceId } }, body: { stateId, ...(contextPatch ? { context: contextPatch } : {}) }, ...this.init() }),
    );
  }

  /** `POST /instances/{id}/retry`: the trigger that faulted the instance applied again, exactly once, as an operation (409 naming why it cannot be). */
  async retryInstance(instanceId: string): Promise<AcceptedOperation> {
    const answer = await this.call(() => this.client.POST('/instances/{instanceId}/retry', { params: { path: { instanceId } }, ...this.init() }));
    return acceptedOf(answer);
  }

  /** `POST /operations/{id}/retry-faulted`: one bulk retry of the instances a trigger's operation faulted (of `workflowId`, else of its first faulted instance's workflow). */
  async retryOperationFaults(operationId: string, workflowId?: string): Promise<AcceptedOperation> {
    const answer = await this.call(() =>
      this.client.POST('/operations/{operationId}/retry-faulted', { params: { path: { operationId }, query: workflowId !== undefined ? { workflowId } : {} }, ...this.init() }),
    );
    return acceptedOf(answer);
  }

  /** `GET /instances/{id}/events`: the instance's lifecycle events, each with its deliveries. */
  async instanceEvents(instanceId: string): Promise<{ items: Schemas['LifecycleEvent'][] }> {
    return this.call(() => this.client.GET('/instances/{instanceId}/events', { params: { path: { instanceId } }, ...this.init() }));
  }

  /** `POST /instances/{id}/events/{eventId}/redeliver`: the event's dead-lettered deliveries pending again. */
  async redeliverEvent(instanceId: string, eventId: string): Promise<void> {
    await this.call(() => this.client.POST('/instances/{instanceId}/events/{eventId}/redeliver', { params: { path: { instanceId, eventId } }, ...this.init() }));
  }

  /** `POST /instances/{id}/suspend`: a waiting instance becomes `suspended` (409 otherwise). */
  async suspendInstance(instanceId: string): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances/{instanceId}/suspend', { params: { path: { instanceId } }, ...this.init() }));
  }

  /** `POST /instances/{id}/resume`: a suspended instance is `waiting` again (409 otherwise). */
  async resumeInstance(instanceId: string): Promise<ApiInstance> {
    return this.call(() => this.client.POST('/instances/{instanceId}/resume', { params: { path: { instanceId } }, ...this.init() }));
  }

  /** `DELETE /instances/{id}` (204); `force` deletes a waiting or initializing one too. */
  async deleteInstance(instanceId: string, options: { force?: boolean } = {}): Promise<void> {
    await this.send(() => this.client.DELETE('/instances/{instanceId}', { params: { path: { instanceId }, query: options.force ? { force: 'true' } : {} }, ...this.init() }));
  }

  /** `DELETE /workflows/{id}` (204): every version; 409 while instances of it exist. */
  /** Every tenant (the admin API, Signalbox.TenantAdmin). */
  async listTenants(): Promise<Tenant[]> {
    return (await this.call(() => this.client.GET('/tenants', this.init()))).items;
  }

  async getTenant(tenantId: string): Promise<Tenant> {
    return this.call(() => this.client.GET('/tenants/{tenantId}', { params: { path: { tenantId } }, ...this.init() }));
  }

  /** Creates the tenant (its storage ready when this answers); `created` false when it existed. */
  async createTenant(tenantId: string, input: TenantInput = {}): Promise<{ tenant: Tenant; created: boolean }> {
    const answer = await this.send(() => this.client.PUT('/tenants/{tenantId}', { params: { path: { tenantId } }, body: input, ...this.init() }));
    return { tenant: answer.data as Tenant, created: answer.response.status === 201 };
  }

  /** Starts the tenant's deletion (202): poll getTenant until it is gone. */
  async deleteTenant(tenantId: string): Promise<TenantDeletion> {
    return this.call(() => this.client.DELETE('/tenants/{tenantId}', { params: { path: { tenantId } }, ...this.init() }));
  }

  async deleteWorkflow(workflowId: string): Promise<void> {
    await this.send(() => this.client.DELETE('/workflows/{workflowId}', { params: { path: { workflowId } }, ...this.init() }));
  }

  /** A migration's dry run: the report of what would move where, and what cannot move and why. */
  async migrationReport(workflowId: string, request: Omit<MigrationRequest, 'dryRun'>): Promise<MigrationReport> {
    const answer = await this.call(() => this.client.POST('/workflows/{workflowId}/migrations', { params: { path: { workflowId } }, body: { ...request, dryRun: true }, ...this.init() }));
    if (!('rows' in answer)) throw new Error('the server answered an operation to a migration dry run');
    return answer;
  }

  /** A migration, as an operation (202). */
  async migrate(workflowId: string, request: Omit<MigrationRequest, 'dryRun'>): Promise<AcceptedOperation> {
    const answer = await this.call(() => this.client.POST('/workflows/{workflowId}/migrations', { params: { path: { workflowId } }, body: { ...request, dryRun: false }, ...this.init() }));
    if (!('operationId' in answer)) throw new Error('the server answered a dry run to a migration that was not one');
    return answer;
  }

  /** A bulk action on every instance the filter matches, as an operation (202). A delete names `expectedCount`. */
  async bulk(request: Omit<BulkRequest, 'dryRun'>): Promise<AcceptedOperation> {
    const answer = await this.call(() => this.client.POST('/instances/bulk', { body: { ...request, dryRun: false }, ...this.init() }));
    if (!('operationId' in answer)) throw new Error('the server answered a dry run to a bulk action that was not one');
    return answer;
  }

  /** How many instances a bulk action's filter matches now; nothing changes. */
  async bulkDryRun(request: Omit<BulkRequest, 'dryRun' | 'expectedCount'>): Promise<BulkDryRun> {
    const answer = await this.call(() => this.client.POST('/instances/bulk', { body: { ...request, dryRun: true }, ...this.init() }));
    if (!('matched' in answer)) throw new Error('the server answered an operation to a bulk dry run');
    return answer;
  }

  /** What the trigger would do (`?dryRun=true`), to each of the first 100 candidates or to the one instance; nothing is saved. */
  async dryRunTrigger(trigger: TriggerToSend, options: { instanceId?: string } = {}): Promise<ApiDryRun> {
    const { subjects, ...withoutSubjects } = trigger;
    const query = { dryRun: 'true' } as const;
    const answer =
      options.instanceId !== undefined
        ? await this.call(() => this.client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId: options.instanceId! }, query }, body: withoutSubjects, ...this.init() }))
        : await this.call(() => this.client.POST('/triggers', { params: { query }, body: { ...withoutSubjects, subjects: subjects ?? [] }, ...this.init() }));
    return dryRunFromAnswer(answer);
  }

  /** `POST /api/triggers`, or the instance-scoped route when `instanceId` is given (the instance is the subject). */
  async sendTrigger(trigger: TriggerToSend, options: { instanceId?: string } = {}): Promise<AcceptedOperation> {
    const { subjects, ...withoutSubjects } = trigger;
    if (options.instanceId !== undefined) {
      const instanceId = options.instanceId;
      return acceptedFromAnswer(await this.call(() => this.client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId } }, body: withoutSubjects, ...this.init() })));
    }
    return acceptedFromAnswer(await this.call(() => this.client.POST('/triggers', { body: { ...withoutSubjects, subjects: subjects ?? [] }, ...this.init() })));
  }

  /** The operation, and how long the server asks a poller to wait (Retry-After) while it runs. */
  async getOperation(operationId: string): Promise<{ operation: ApiOperation; retryAfterInMs?: number }> {
    const result = await this.send(() => this.client.GET('/operations/{operationId}', { params: { path: { operationId } }, ...this.init() }));
    const retryAfter = Number(result.response.headers.get('retry-after'));
    return { operation: result.data as ApiOperation, ...(result.response.status === 202 && retryAfter > 0 ? { retryAfterInMs: retryAfter * 1000 } : {}) };
  }

  /** `GET /workflows/{id}/diagram`: the Mermaid text (text/plain). */
  async workflowDiagram(workflowId: string, options: { version?: number; instanceId?: string } = {}): Promise<string> {
    const query = { ...(options.version !== undefined ? { version: options.version } : {}), ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}) };
    return this.call(() => this.client.GET('/workflows/{workflowId}/diagram', { params: { path: { workflowId }, query }, parseAs: 'text', ...this.init() }));
  }

  /** `GET /instances/{id}/available-triggers`: the transitions of its current state and what they answer. */
  async availableTriggers(instanceId: string): Promise<AvailableTriggers> {
    return this.call(() => this.client.GET('/instances/{instanceId}/available-triggers', { params: { path: { instanceId } }, ...this.init() }));
  }

  /** `GET /instances/{id}/waiting`: why it is not moving, every reason, the primary first. */
  async whyWaiting(instanceId: string): Promise<WaitingAnswer> {
    return this.call(() => this.client.GET('/instances/{instanceId}/waiting', { params: { path: { instanceId } }, ...this.init() }));
  }

  /** `GET /workflows/{id}/waiting`: its instances that are not final, counted per class and state. */
  async waitingSummary(workflowId: string): Promise<WaitingSummary> {
    return this.call(() => this.client.GET('/workflows/{workflowId}/waiting', { params: { path: { workflowId } }, ...this.init() }));
  }

  /** `GET /workflows/{workflowId}/cost`: what the workflow's operations cost per day since `since` (yyyy-mm-dd; the server's default: 30 days). */
  async workflowCost(workflowId: string, since?: string): Promise<Schemas['WorkflowCost']> {
    return this.call(() => this.client.GET('/workflows/{workflowId}/cost', { params: { path: { workflowId }, query: since !== undefined ? { since } : {} }, ...this.init() }));
  }

  /** `GET /tasks`: the caller's inbox of human tasks. */
  async listTasks(query: { workflowId?: string; overdue?: 'true'; escalated?: 'true'; limit?: number; continuationToken?: string }): Promise<TaskInbox> {
    return this.call(() => this.client.GET('/tasks', { params: { query }, ...this.init() }));
  }

  /** `GET /tasks/{taskId}`, or `POST /tasks/{taskId}/claim|complete`. */
  async task(taskId: string, command?: 'claim' | 'release', body?: undefined): Promise<Schemas['Task']>;
  async task(taskId: string, command: 'complete', body: { outcome: string; parameters?: Record<string, unknown>; comment?: string }): Promise<Schemas['Task']>;
  async task(taskId: string, command?: 'claim' | 'release' | 'complete', body?: { outcome: string; parameters?: Record<string, unknown>; comment?: string }): Promise<Schemas['Task']> {
    const path = { params: { path: { taskId } }, ...this.init() };
    if (command === 'claim') return this.call(() => this.client.POST('/tasks/{taskId}/claim', path));
    if (command === 'release') return this.call(() => this.client.POST('/tasks/{taskId}/release', path));
    if (command === 'complete') return this.call(() => this.client.POST('/tasks/{taskId}/complete', { ...path, body: body as never }));
    return this.call(() => this.client.GET('/tasks/{taskId}', path));
  }

  /** `GET /flow/{workflowId}/keys/{key}`: what runs and waits under the workflow's concurrency policy for one key. */
  async flowKey(workflowId: string, key: string): Promise<Schemas['FlowKey']> {
    return this.call(() => this.client.GET('/flow/{workflowId}/keys/{key}', { params: { path: { workflowId, key } }, ...this.init() }));
  }
}

/** A page of `GET /tasks`. */
export interface TaskInbox {
  readonly items: readonly { taskId: string; title: string; stateId: string; instanceId: string; dueAt?: string; overdue: boolean; escalated: boolean; claimedBy?: string }[];
  readonly continuationToken?: string;
}

/** The 202 of a route that may also answer 200 with the finished operation (`Prefer: wait`, which the CLI does not send). */
function acceptedOf(answer: AcceptedOperation | ApiOperation): AcceptedOperation {
  if ('operationId' in answer) return answer;
  return { operationId: answer.id, status: answer.status, statusUrl: `/api/operations/${encodeURIComponent(answer.id)}` };
}
