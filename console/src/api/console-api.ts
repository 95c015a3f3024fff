/**
 * @module The console's view of the Signalbox API: one method per route it uses. Every call carries the
 * key (`x-functions-key`) when one is set, and every failure is an ApiError holding the problem+json.
 */
import { ApiError } from './api-error';
import { capabilitiesFrom, type Capabilities } from './capabilities';
import type {
  Accepted,
  AvailableTriggers,
  DryRunResult,
  HistoryEntry,
  Instance,
  InstanceFilter,
  Operation,
  Page,
  Problem,
  TriggerInput,
  Workflow,
  WorkflowSummary,
} from './types';

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
  recoverInstance(instanceId: string, stateId: string): Promise<Instance>;
  cancelInstance(instanceId: string): Promise<Instance>;
  getOperation(operationId: string): Promise<Operation>;
}

export interface HttpConsoleApiOptions {
  /** Where the API lives, e.g. `http://127.0.0.1:7071/api`. */
  baseUrl: string;
  /** Read on every call, so a key entered later applies at once. */
  apiKey: () => string | undefined;
  fetch?: typeof fetch;
}

function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

const segment = encodeURIComponent;

export function createHttpConsoleApi(options: HttpConsoleApiOptions): ConsoleApi {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  let capabilities: Promise<Capabilities> | undefined;

  async function request(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json, text/plain' };
    const key = options.apiKey();
    if (key) headers['x-functions-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetchImpl(`${options.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.ok) return response;
    const text = await response.text();
    let problem: Problem;
    try {
      problem = JSON.parse(text) as Problem;
      if (typeof problem !== 'object' || problem === null || typeof problem.title !== 'string') throw new Error('not a problem');
    } catch {
      problem = { title: response.statusText || 'Request failed', status: response.status, detail: text.slice(0, 500) || undefined };
    }
    throw new ApiError({ ...problem, status: problem.status ?? response.status });
  }
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => (await (await request(method, path, body)).json()) as T;

  return {
    capabilities() {
      // Fetched once per page load; a failure is not cached, so a later call tries again.
      capabilities ??= json<unknown>('GET', '/openapi.json').then(capabilitiesFrom, (error: unknown) => {
        capabilities = undefined;
        throw error;
      });
      return capabilities;
    },
    listWorkflows: (continuationToken) => json('GET', `/workflows${query({ continuationToken })}`),
    getWorkflow: (workflowId, version) => json('GET', `/workflows/${segment(workflowId)}${query({ version })}`),
    getDiagram: async (workflowId, diagramOptions = {}) =>
      (await request('GET', `/workflows/${segment(workflowId)}/diagram${query({ version: diagramOptions.version, instanceId: diagramOptions.instanceId })}`)).text(),
    listInstances: (filter, continuationToken, maxPageSize) =>
      json('GET', `/instances${query({ workflowId: filter.workflowId, stateId: filter.stateId, status: filter.status, subject: filter.subject, continuationToken, maxPageSize })}`),
    getInstance: (instanceId) => json('GET', `/instances/${segment(instanceId)}`),
    getHistory: (instanceId) => json('GET', `/instances/${segment(instanceId)}/history`),
    getAvailableTriggers: (instanceId) => json('GET', `/instances/${segment(instanceId)}/available-triggers`),
    sendInstanceTrigger: (instanceId, trigger) => json('POST', `/instances/${segment(instanceId)}/triggers`, trigger),
    dryRunInstanceTrigger: (instanceId, trigger) => json('POST', `/instances/${segment(instanceId)}/triggers?dryRun=true`, trigger),
    recoverInstance: (instanceId, stateId) => json('POST', `/instances/${segment(instanceId)}/recover`, { stateId }),
    cancelInstance: (instanceId) => json('POST', `/instances/${segment(instanceId)}/cancel`),
    getOperation: (operationId) => json('GET', `/operations/${segment(operationId)}`),
  };
}
