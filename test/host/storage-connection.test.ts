/** Which storage the app settings select. */
import { StorageNotConfiguredError, resolveStorageConnection } from '../../src/host/storage-connection';
import { AZURITE_ACCOUNT_NAME } from '../../src/storage/development-storage';

describe('resolveStorageConnection', () => {
  it('prefers SIGNALBOX_STORAGE over AzureWebJobsStorage', () => {
    expect(resolveStorageConnection({ SIGNALBOX_STORAGE: 'AccountName=a;AccountKey=k', AzureWebJobsStorage: 'AccountName=b;AccountKey=k' })).toEqual({
      kind: 'connectionString',
      connectionString: 'AccountName=a;AccountKey=k',
    });
    expect(resolveStorageConnection({ SIGNALBOX_STORAGE: '  ', AzureWebJobsStorage: 'AccountName=b;AccountKey=k' })).toMatchObject({ connectionString: 'AccountName=b;AccountKey=k' });
  });

  it('expands UseDevelopmentStorage=true to the local Azurite', () => {
    const connection = resolveStorageConnection({ AzureWebJobsStorage: 'UseDevelopmentStorage=true' });
    expect(connection.kind).toBe('connectionString');
    expect((connection as { connectionString: string }).connectionString).toContain(`TableEndpoint=http://127.0.0.1:10002/${AZURITE_ACCOUNT_NAME}`);
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
    // A server fault, not a bad request (issue 10, section 5): not a SignalboxError, so the hosts answer 500.
    expect(() => resolveStorageConnection({})).toThrow(StorageNotConfiguredError);
    expect(() => resolveStorageConnection({ AzureWebJobsStorage__blobServiceUri: 'https://b.example' })).toThrow(/AzureWebJobsStorage__accountName/);
  });
});
