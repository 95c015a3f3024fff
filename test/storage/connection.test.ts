/** Which storage the app settings select. */
import { ValidationError } from '../../src/engine/errors';
import { AZURITE_ACCOUNT_NAME } from '../../src/host/azurite';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { expandDevelopmentStorage, resolveStorageConnection } from '../../src/storage/connection';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';

describe('resolveStorageConnection', () => {
  it('prefers SIGNALBOX_STORAGE over AzureWebJobsStorage', () => {
    expect(resolveStorageConnection({ SIGNALBOX_STORAGE: 'AccountName=a;AccountKey=k', AzureWebJobsStorage: 'AccountName=b;AccountKey=k' })).toEqual({
      kind: 'connectionString',
      connectionString: 'AccountName=a;AccountKey=k',
    });
    expect(resolveStorageConnection({ SIGNALBOX_STORAGE: '  ', AzureWebJobsStorage: 'AccountName=b;AccountKey=k' })).toMatchObject({ connectionString: 'AccountName=b;AccountKey=k' });
  });

  it('expands UseDevelopmentStorage=true to the local Azurite, which the table SDK does not know', () => {
    const connection = resolveStorageConnection({ AzureWebJobsStorage: 'UseDevelopmentStorage=true' });
    expect(connection.kind).toBe('connectionString');
    const connectionString = (connection as { connectionString: string }).connectionString;
    expect(connectionString).toContain(`TableEndpoint=http://127.0.0.1:10002/${AZURITE_ACCOUNT_NAME}`);
    expect(connectionString).toContain(`BlobEndpoint=http://127.0.0.1:10000/${AZURITE_ACCOUNT_NAME}`);
    expect(expandDevelopmentStorage('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://azurite')).toContain('TableEndpoint=http://azurite:10002/');
  });

  it('derives identity-based endpoints from the account name, or takes the service URIs', () => {
    expect(resolveStorageConnection({ AzureWebJobsStorage__accountName: 'acct' })).toMatchObject({
      kind: 'identity',
      blobServiceUri: 'https://acct.blob.core.windows.net',
      tableServiceUri: 'https://acct.table.core.windows.net',
    });
    expect(
      resolveStorageConnection({
        AzureWebJobsStorage__blobServiceUri: 'https://b.example/',
        AzureWebJobsStorage__tableServiceUri: 'https://t.example',
        AzureWebJobsStorage__credential: 'managedidentity',
        AzureWebJobsStorage__clientId: '00000000-0000-0000-0000-000000000000',
      }),
    ).toMatchObject({ kind: 'identity', blobServiceUri: 'https://b.example', tableServiceUri: 'https://t.example' });
  });

  it('names the settings to set when none is', () => {
    expect(() => resolveStorageConnection({})).toThrow(ValidationError);
    expect(() => resolveStorageConnection({ AzureWebJobsStorage__blobServiceUri: 'https://b.example' })).toThrow(/AzureWebJobsStorage__accountName/);
  });
});

describe('createAzureStorage', () => {
  it('reads the connection from the settings and creates its tables idempotently', async () => {
    const names = prefixedStorageNames(uniquePrefix('c'));
    const env = { SIGNALBOX_STORAGE: testConnectionString() };
    const first = await createAzureStorage({ env, names });
    const second = await createAzureStorage({ env, names });
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
