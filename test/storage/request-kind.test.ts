/**
 * Decision 0021: which billed kind a storage request is, from its method, URL and lease header. A point
 * read names the entity by its keys; anything else a GET sends is a query; an entity-group transaction is
 * one write.
 */
import { blobRequestKind, tableRequestKind } from '../../src/storage/request-kind';

describe('tableRequestKind', () => {
  it.each([
    ['GET', "http://127.0.0.1:10002/devstoreaccount1/instances(PartitionKey='i-1',RowKey='')", 'tableRead'],
    ['GET', 'http://127.0.0.1:10002/devstoreaccount1/instances(PartitionKey=%27i%201%27,RowKey=%27r%27)?$select=body', 'tableRead'],
    ['GET', "https://acct.table.core.windows.net/interests()?$filter=PartitionKey%20eq%20'x'", 'tableQuery'],
    ['GET', 'https://acct.table.core.windows.net/operations?$filter=x', 'tableQuery'],
    ['POST', 'https://acct.table.core.windows.net/$batch', 'tableWrite'],
    ['PUT', "https://acct.table.core.windows.net/operations(PartitionKey='a',RowKey='b')", 'tableWrite'],
    ['PATCH', "https://acct.table.core.windows.net/operations(PartitionKey='a',RowKey='b')", 'tableWrite'],
    ['DELETE', "https://acct.table.core.windows.net/operations(PartitionKey='a',RowKey='b')", 'tableWrite'],
  ])('%s %s is %s', (method, url, kind) => {
    expect(tableRequestKind(method, url)).toBe(kind);
  });
});

describe('blobRequestKind', () => {
  it('tells a lease request by its header, then reads from writes', () => {
    expect(blobRequestKind('PUT', 'acquire')).toBe('blobLease');
    expect(blobRequestKind('PUT', 'release')).toBe('blobLease');
    expect(blobRequestKind('GET', undefined)).toBe('blobRead');
    expect(blobRequestKind('HEAD', undefined)).toBe('blobRead');
    expect(blobRequestKind('PUT', undefined)).toBe('blobWrite');
    expect(blobRequestKind('DELETE', undefined)).toBe('blobWrite');
  });
});
