/** Storage connections: UseDevelopmentStorage=true, and building the stores from a connection string. */
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { corePipelineOf, createContainerClient, createTableClient, expandDevelopmentStorage } from '../../src/storage/connection';
import { AZURITE_ACCOUNT_NAME } from '../../src/storage/development-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';

describe('expandDevelopmentStorage', () => {
  it('expands UseDevelopmentStorage=true to the local Azurite, which the table SDK does not know', () => {
    const connectionString = expandDevelopmentStorage('UseDevelopmentStorage=true');
    expect(connectionString).toContain(`TableEndpoint=http://127.0.0.1:10002/${AZURITE_ACCOUNT_NAME}`);
    expect(connectionString).toContain(`BlobEndpoint=http://127.0.0.1:10000/${AZURITE_ACCOUNT_NAME}`);
    expect(expandDevelopmentStorage('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://azurite')).toContain('TableEndpoint=http://azurite:10002/');
    expect(expandDevelopmentStorage('AccountName=a;AccountKey=k')).toBe('AccountName=a;AccountKey=k');
  });
});

describe('createAzureStorage', () => {
  it('creates its tables idempotently', async () => {
    const names = prefixedStorageNames(uniquePrefix('c'));
    const first = await createAzureStorage({ connection: testConnectionString(), names });
    const second = await createAzureStorage({ connection: testConnectionString(), names });
    await first.operations.create({
      id: 'op',
      triggerId: 'op',
      trigger: { id: 'op', name: 'n', subjects: ['s'] },
      status: 'running',
      createdAt: 'now',
      updatedAt: 'now',
      candidates: 0,
      summary: { transitioned: 0, noTransition: 0, exitBlocked: 0, entryBlocked: 0, faulted: 0, notActive: 0, notInterested: 0, duplicate: 0, notFound: 0 },
      instances: [],
    });
    expect((await second.operations.get('op'))?.status).toBe('running');
    expect(second.history).toBe(second.instances);
  });
});

describe('the storage clients’ pipelines', () => {
  it('leave out the SDK’s tracing policy, which only opens a no-op span per request here (no Azure SDK instrumenter is registered)', () => {
    const connection = { kind: 'connectionString' as const, connectionString: testConnectionString() };
    const table = createTableClient(connection, 'anyTable');
    const container = createContainerClient(connection, 'any-container');
    expect(pipelinePolicyNames(table.pipeline)).not.toContain('tracingPolicy');
    expect(pipelinePolicyNames(table.pipeline)).toContain('tablesNamedKeyCredentialPolicy');
    const containerPolicies = pipelinePolicyNames(corePipelineOf(container));
    expect(containerPolicies).not.toContain('tracingPolicy');
    expect(containerPolicies.length).toBeGreaterThan(3);
  });
});

function pipelinePolicyNames(pipeline: { getOrderedPolicies(): { name: string }[] }): string[] {
  return pipeline.getOrderedPolicies().map((policy) => policy.name);
}
