/** An in-memory ConsoleApi for component tests: every method a jest mock with a sensible default. */
import type { ConsoleApi } from '../../../console/src/api/console-api';
import type { Instance, Workflow } from '../../../src/client';

export const workflow: Workflow = {
  id: 'expense-claim',
  displayName: 'Expense claim',
  initialStateId: 'draft',
  version: 2,
  etag: '"w2"',
  states: {
    draft: { displayName: 'Draft', transitions: [{ id: 'submit', targetStateId: 'submitted' }] },
    submitted: { displayName: 'Submitted' },
  },
};

export function instance(overrides: Partial<Instance> = {}): Instance {
  return {
    id: 'claim-1',
    workflowId: 'expense-claim',
    workflowVersion: 2,
    stateId: 'draft',
    status: 'waiting',
    context: { claimantId: 'ann', lines: [{ amount: 12 }] },
    interests: ['claim-1', 'claimant:ann'],
    timers: [],
    createdAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:05:00.000Z',
    etag: '"1"',
    ...overrides,
  };
}

/** Loosely typed mocks: a test overrides a method with whatever answer (or failure) it needs. */
export type FakeApi = { [K in keyof ConsoleApi]: jest.Mock };

export function fakeApi(overrides: Partial<FakeApi> = {}): FakeApi {
  return {
    whoAmI: jest.fn(async () => ({ id: 'api-key', name: 'API key', roles: ['Signalbox.Admin'], via: 'key', tenants: ['default'] })),
    listTenants: jest.fn(async () => ({ items: [{ id: 'default', createdAt: '2026-11-23T10:00:00.000Z' }] })),
    createTenant: jest.fn(async (tenantId: string) => ({ id: tenantId, createdAt: '2026-11-23T10:00:00.000Z' })),
    deleteTenant: jest.fn(async (tenantId: string) => ({ id: `tenant-deletion:${tenantId}`, kind: 'tenantDeletion', tenantId, status: 'running', requestedAt: '2026-11-23T10:00:00.000Z' })),
    listWorkflows: jest.fn(async () => ({ items: [{ id: workflow.id, displayName: workflow.displayName, version: workflow.version }] })),
    getWorkflow: jest.fn(async () => workflow),
    getDiagram: jest.fn(async () => 'stateDiagram-v2\n    state "Draft" as s0\n    state "Submitted" as s1\n    s0 --> s1: Submit\n'),
    listInstances: jest.fn(async () => ({ items: [instance()] })),
    searchInstances: jest.fn(async () => ({ items: [instance()] })),
    countInstances: jest.fn(async () => ({ count: 1, groups: [{ key: 'draft', count: 1 }] })),
    getInstance: jest.fn(async () => instance()),
    getHistory: jest.fn(async () => ({ items: [] })),
    getInstanceWaiting: jest.fn(async (instanceId: string) => ({
      instanceId,
      workflowId: 'expense-claim',
      workflowVersion: 2,
      stateId: 'draft',
      status: 'waiting' as const,
      class: 'waitingForTrigger' as const,
      since: '2026-11-23T10:05:00.000Z',
      reasons: [{ class: 'waitingForTrigger' as const, triggers: [{ transitionId: 'submit', triggerNames: ['Submit'], targetStateId: 'submitted' }], subjects: [instanceId] }],
    })),
    getWorkflowWaiting: jest.fn(async (workflowId: string) => ({ workflowId, scanned: 0, notFinal: 0, truncated: false, groups: [] })),
    getWorkflowCost: jest.fn(async (workflowId: string) => ({
      workflowId,
      since: '2026-10-24',
      operations: 0,
      cost: { storage: { tableRead: 0, tableQuery: 0, tableWrite: 0, blobLease: 0, blobRead: 0, blobWrite: 0 }, outbound: { calls: 0, bytesSent: 0, bytesReceived: 0 }, activities: 0 },
      estimate: { currency: 'USD', total: 0, storage: 0, outbound: 0, activities: 0, storageRequests: 0 },
      days: [],
      prices: { currency: 'USD', region: 'eastus', takenOn: '2026-12-02', source: 'placeholders' },
    })),
    getAvailableTriggers: jest.fn(async () => ({ status: 'waiting' as const, items: [{ transitionId: 'submit', triggerNames: ['Submit'], parameters: [], targetStateId: 'submitted' }] })),
    sendInstanceTrigger: jest.fn(async () => ({ operationId: 'op-1', status: 'notStarted' as const, statusUrl: '/api/operations/op-1' })),
    dryRunInstanceTrigger: jest.fn(async (instanceId: string) => ({
      instances: [
        {
          instanceId,
          outcome: 'transitioned',
          transitionId: 'submit',
          toStateId: 'submitted',
          trace: [{ path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: true }],
          contextAfter: { submitted: true },
        },
      ],
    })),
    recoverInstance: jest.fn(async (instanceId: string, stateId: string) => instance({ id: instanceId, stateId })),
    retryInstance: jest.fn(async () => ({ operationId: 'retry-1', status: 'notStarted', statusUrl: '/api/operations/retry-1' })),
    cancelInstance: jest.fn(async (instanceId: string) => instance({ id: instanceId, status: 'cancelled' })),
    suspendInstance: jest.fn(async (instanceId: string) => instance({ id: instanceId, status: 'suspended' })),
    resumeInstance: jest.fn(async (instanceId: string) => instance({ id: instanceId, status: 'waiting' })),
    getEvents: jest.fn(async () => ({ items: [] })),
    redeliverEvent: jest.fn(async (_instanceId: string, eventId: string) => ({ eventId })),
    getOffers: jest.fn(async () => ({ items: [] })),
    listOperations: jest.fn(async () => ({ items: [] })),
    getOperation: jest.fn(async (operationId: string) => ({
      id: operationId,
      status: 'succeeded' as const,
      createdAt: '2026-11-23T10:06:00.000Z',
      updatedAt: '2026-11-23T10:06:01.000Z',
      candidates: 1,
      summary: { transitioned: 1, faulted: 0 },
      instances: [{ instanceId: 'claim-1', outcome: 'transitioned', transitionId: 'submit', fromStateId: 'draft', toStateId: 'submitted' }],
    })),
    ...overrides,
  } as FakeApi;
}
