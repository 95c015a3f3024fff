/** Test data and a per-file Azure storage on the Azurite that global-setup started. */
import { workflowDefinitionSchema, type WorkflowDefinition } from '../../src/engine/definition';
import { emptySummary, type TriggerOperation } from '../../src/engine/operations';
import type { HistoryEntry, Instance } from '../../src/engine/model';
import { createAzureStorage, type AzureStorage, type AzureStorageOptions } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';

/** Fresh tables and container (own prefix) so test files never see each other's rows. */
export function createTestStorage(options: Omit<AzureStorageOptions, 'connection' | 'names'> = {}): Promise<AzureStorage> {
  return createAzureStorage({ ...options, connection: testConnectionString(), names: prefixedStorageNames(uniquePrefix('s')) });
}

export function makeDefinition(id: string, displayName = `Workflow ${id}`): WorkflowDefinition {
  return workflowDefinitionSchema.parse({
    id,
    displayName,
    initialStateId: 'open',
    states: {
      open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] },
      closed: {},
    },
  });
}

export function makeInstance(id: string, overrides: Partial<Instance> = {}): Instance {
  return {
    id,
    workflowId: 'wf',
    workflowVersion: 1,
    stateId: 'open',
    status: 'waiting',
    context: { count: 0 },
    interests: [id],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    appliedTriggers: [],
    outbox: [],
    historyLength: 0,
    ...overrides,
  };
}

export function makeHistoryEntry(sequence: number, overrides: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    sequence,
    at: `2026-01-01T00:00:${String(sequence % 60).padStart(2, '0')}.000Z`,
    event: sequence === 0 ? 'created' : 'transitioned',
    triggerId: sequence === 0 ? null : `t${sequence}`,
    transitionId: sequence === 0 ? null : 'close',
    fromStateId: sequence === 0 ? null : 'open',
    toStateId: 'open',
    status: 'waiting',
    ...overrides,
  };
}

export function makeOperation(id: string, overrides: Partial<TriggerOperation> = {}): TriggerOperation {
  return {
    id,
    triggerId: id,
    trigger: { id, name: 'Close', subjects: ['s1'] },
    status: 'notStarted',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    candidates: 0,
    summary: emptySummary(),
    instances: [],
    ...overrides,
  };
}

/** Removes the ETag a store adds, to compare with what was written. */
export function withoutEtag<T extends { etag?: string }>(value: T): Omit<T, 'etag'> {
  const { etag: _etag, ...rest } = value;
  return rest;
}

/** Drains a paged list. */
export async function collect<T>(
  list: (options: { continuationToken?: string; maxPageSize?: number }) => Promise<{ items: T[]; continuationToken?: string }>,
  maxPageSize: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let pages = 0;
  let continuationToken: string | undefined;
  do {
    const page = await list({ maxPageSize, ...(continuationToken && { continuationToken }) });
    expect(page.items.length).toBeLessThanOrEqual(maxPageSize);
    items.push(...page.items);
    pages += 1;
    continuationToken = page.continuationToken;
  } while (continuationToken);
  return { items, pages };
}
