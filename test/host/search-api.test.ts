/**
 * Finding instances over HTTP, on the local server and Azurite: declared and built-in fields, counts,
 * explain, 400s with positions for hostile filters (never reaching storage unescaped), a unique business
 * key, and sensitive values never stored in clear (the raw search table is read).
 */
import { TableClient } from '@azure/data-tables';
import { startTestHost } from '../support/local-host';
import { testConnectionString } from '../support/storage';
import type { LocalHost } from '../../src/host/local/local-host';
import type { StorageNames } from '../../src/storage/names';
import { httpClient } from './http-client';
import { TableSearchIndex } from '../../src/storage';

const expenseClaim = {
  id: 'expense-claim',
  displayName: 'Expense claim',
  initialStateId: 'waiting-for-approval',
  uniqueBusinessKey: true,
  indexes: [
    { name: 'amount', type: 'number', expression: 'context.amount' },
    { name: 'region', type: 'keyword', expression: '$lowercase(context.region)' },
    { name: 'iban', type: 'string', expression: 'context.iban', sensitive: true },
  ],
  states: {
    'waiting-for-approval': { transitions: [{ id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
    approved: {},
  },
};

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let names: StorageNames;
const query = (path: string, parameters: Record<string, string>) => `${path}?${new URLSearchParams(parameters).toString()}`;

beforeAll(async () => {
  ({ host, api, storageNames: names } = await startTestHost('search', { env: { SIGNALBOX_INDEX_HMAC_KEY: 'a-test-key-of-at-least-32-characters!' } }));
  expect((await api.request('PUT', '/api/workflows/expense-claim', { json: expenseClaim })).status).toBe(201);
  const regions = ['North', 'South'];
  for (let index = 0; index < 12; index++) {
    const created = await api.request('POST', '/api/instances', {
      json: {
        workflowId: 'expense-claim',
        instanceId: `claim-${index}`,
        businessKey: `INV-${4700 + index}`,
        context: { amount: index * 1000, region: regions[index % 2], iban: `DE89370400440532013${index}` },
      },
    });
    expect(created.status).toBe(201);
  }
  for (const id of ['claim-10', 'claim-11']) expect((await api.request('POST', `/api/instances/${id}/triggers`, { json: { name: 'Approve' } })).status).toBeLessThan(300);
}, 120_000);

afterAll(async () => {
  await host?.stop();
});

describe('GET /api/instances with a filter', () => {
  it('finds by declared and built-in fields, ordered, with the plan on request', async () => {
    const found = await api.request(
      'GET',
      query('/api/instances', { workflowId: 'expense-claim', filter: "amount > 5000 and stateId = 'waiting-for-approval' and region = 'north'", orderBy: 'amount desc', explain: 'true' }),
    );
    expect(found.status).toBe(200);
    expect(found.body.items.map((instance: { id: string }) => instance.id)).toEqual(['claim-8', 'claim-6']);
    expect(found.body.explain).toMatchObject({ index: { field: 'region', condition: "region = 'north'" }, order: 'amount desc (sorted in memory)' });
    expect(found.body.explain.storageRequests.indexPages).toBeGreaterThanOrEqual(1);
  });

  it('finds the claim for an invoice by its business key, reading one row', async () => {
    const found = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter: "businessKey = 'INV-4711'", explain: 'true' }));
    expect(found.body.items.map((instance: { id: string; businessKey: string }) => [instance.id, instance.businessKey])).toEqual([['claim-11', 'INV-4711']]);
    expect(found.body.explain.storageRequests).toEqual({ indexPages: 1, indexRows: 1, instanceReads: 1, total: 2 });
  });

  it('pages with a continuation token', async () => {
    const first = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter: 'amount >= 0', maxPageSize: '5' }));
    expect(first.body.items).toHaveLength(5);
    const second = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter: 'amount >= 0', maxPageSize: '100', continuationToken: first.body.continuationToken }));
    expect([...first.body.items, ...second.body.items].map((instance: { id: string }) => instance.id).sort()).toHaveLength(12);
  });

  it('answers 400 with the position for unknown fields, wrong types, syntax, deep nesting and 10,000 terms', async () => {
    const refused = async (filter: string) => {
      const answer = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter }));
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
      return answer.body.errors?.[0]?.message ?? answer.body.detail;
    };
    expect(await refused("stateId = 'x' and amout > 1")).toBe('position 19: unknown field "amout" (did you mean "amount"?)');
    expect(await refused("amount > 'lots'")).toMatch(/^position 1: "amount" is a number/);
    expect(await refused(`${'('.repeat(40)}amount = 1${')'.repeat(40)}`)).toMatch(/nested more than 16 levels/);
    // 10,000 terms do not fit in a URL: the HTTP server refuses them (431) before any route runs. The parser's
    // own refusal of them (the filter's length) is in test/engine/search/query.test.ts.
    const huge = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter: Array.from({ length: 10_000 }, () => 'amount = 1').join(' or ') }));
    expect(huge.status).toBe(431);
    expect(await refused('amount between 1')).toMatch(/^position 17: expected "and" of "between"/);
  });

  it('values carrying Table Storage filter syntax are only values: nothing found, nothing leaked', async () => {
    for (const hostile of ["x' or PartitionKey ne '", "' or 1 eq 1 or RowKey gt '", "north'' or ''a'' eq ''a"]) {
      const found = await api.request(
        'GET',
        query('/api/instances', { workflowId: 'expense-claim', filter: `region = '${hostile.replaceAll("'", "''")}' or businessKey startsWith '${hostile.replaceAll("'", "''")}'` }),
      );
      expect(found.status).toBe(200);
      expect(found.body.items).toEqual([]);
      // What reaches storage: the range bounds, where a value is only ever hex digits (no quote, no space).
      const explained = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter: `region = '${hostile.replaceAll("'", "''")}'`, explain: 'true' }));
      expect(explained.body.explain.index).toMatchObject({ field: 'region', from: expect.stringMatching(/^region!s[0-9a-f]+[!"~]?$/), to: expect.stringMatching(/^region!s[0-9a-f]+[!"~]?$/) });
    }
  });

  it('needs workflowId, and refuses mixing the listing parameters with a filter', async () => {
    expect((await api.request('GET', query('/api/instances', { filter: 'amount > 1' }))).status).toBe(400);
    expect((await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', stateId: 'approved', filter: 'amount > 1' }))).status).toBe(400);
  });
});

describe('GET /api/instance-counts', () => {
  it('counts, per state and per keyword', async () => {
    const all = await api.request('GET', query('/api/instance-counts', { workflowId: 'expense-claim' }));
    // Counted from the index rows, and labelled so: an instance being deleted, or a creation a crash
    // stopped, is counted until its rows go.
    expect(all.body).toEqual({ count: 12, countedFrom: 'index' });
    // A selective equality reads its few instances: what it counts exists and is not being deleted.
    expect((await api.request('GET', query('/api/instance-counts', { workflowId: 'expense-claim', filter: "businessKey = 'INV-4703'" }))).body).toEqual({
      count: 1,
      countedFrom: 'instances',
    });
    const perState = await api.request('GET', query('/api/instance-counts', { workflowId: 'expense-claim', groupBy: 'stateId' }));
    // Counted from the state rows alone: one page, no instance read.
    const explained = await api.request('GET', query('/api/instance-counts', { workflowId: 'expense-claim', groupBy: 'stateId', explain: 'true' }));
    expect(explained.body.explain).toMatchObject({ storageRequests: { indexPages: 1, indexRows: 12, instanceReads: 0 }, counted: expect.stringMatching(/^from the index rows of stateId/) });
    expect(perState.body).toEqual({
      count: 12,
      countedFrom: 'index',
      groups: [
        { key: 'waiting-for-approval', count: 10 },
        { key: 'approved', count: 2 },
      ],
    });
    const perRegion = await api.request('GET', query('/api/instance-counts', { workflowId: 'expense-claim', groupBy: 'region', filter: 'amount < 4000' }));
    expect(perRegion.body.groups).toEqual([
      { key: 'north', count: 2 },
      { key: 'south', count: 2 },
    ]);
    expect((await api.request('GET', query('/api/instance-counts', { workflowId: 'expense-claim', groupBy: 'amount' }))).status).toBe(400);
    expect((await api.request('GET', query('/api/instance-counts', { workflowId: 'nope' }))).status).toBe(404);
  });
});

describe('business keys and sensitive fields', () => {
  it('a second instance with a unique business key is refused with 409 naming the first', async () => {
    const second = await api.request('POST', '/api/instances', { json: { workflowId: 'expense-claim', instanceId: 'claim-dup', businessKey: 'INV-4703' } });
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain('instance "claim-3"');
  });

  it('a sensitive field is found by equality and never stored in clear', async () => {
    const found = await api.request('GET', query('/api/instances', { workflowId: 'expense-claim', filter: "iban = 'DE893704004405320137'" }));
    expect(found.body.items.map((instance: { id: string }) => instance.id)).toEqual(['claim-7']);
    const raw = TableClient.fromConnectionString(testConnectionString(), names.searchTable, { allowInsecureConnection: true });
    const rows: string[] = [];
    for await (const row of raw.listEntities()) rows.push(JSON.stringify(row));
    expect(rows.length).toBeGreaterThan(12 * 6);
    const ibanRows = rows.filter((row) => row.includes('"rowKey":"iban!'));
    expect(ibanRows).toHaveLength(12);
    const clearHex = Buffer.from('DE893704004405320137', 'utf8').toString('hex');
    for (const row of rows) {
      expect(row).not.toContain('DE893704004405320137');
      expect(row).not.toContain(clearHex);
    }
  });

  it('rows loaded in bulk (the bench seeds with it) are the rows a save writes', async () => {
    const index = new TableSearchIndex(TableClient.fromConnectionString(testConnectionString(), names.searchTable, { allowInsecureConnection: true }));
    const entries = ['amount!n' + '8'.repeat(16), `stateId!s${Buffer.from('bulk').toString('hex')}`];
    await index.write('bulk-check', 'by-save', { add: entries, remove: [], incarnation: 'i1' });
    await index.addMany('bulk-check', [{ instanceId: 'by-bulk', entries, incarnation: 'i1' }]);
    const rows = (await index.scan('bulk-check', { from: '!', to: '~' })).items;
    const of = (instanceId: string) => rows.filter((row) => row.instanceId === instanceId).map(({ entry, incarnation }) => ({ entry, incarnation }));
    expect(of('by-bulk')).toEqual(of('by-save'));
    expect(of('by-save')).toHaveLength(2);
  });

  it('rows read say when they were written (the repair of a creation that never happened waits for it)', async () => {
    const raw = TableClient.fromConnectionString(testConnectionString(), names.searchTable, { allowInsecureConnection: true });
    const page = await new TableSearchIndex(raw).scan('expense-claim', { from: 'stateId!', to: 'stateId"' });
    expect(page.items).toHaveLength(12);
    for (const row of page.items) expect(Date.parse(row.writtenAt ?? '')).toBeGreaterThan(Date.parse('2020-01-01'));
  });
});
