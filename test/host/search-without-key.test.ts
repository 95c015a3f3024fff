/**
 * A local server started without SIGNALBOX_INDEX_HMAC_KEY, over Azurite: a search or a count on a
 * sensitive field answers 400 problem+json naming the field and the setting (it once answered 500, a
 * failed import of an empty key), other searches answer, and pushing a definition with a sensitive index
 * is stored with a warning that says the field will stay unindexed. The functions app is held to the same
 * in test/functions/search-without-key.azurite.test.ts.
 */
import { startTestHost } from '../support/local-host';
import type { LocalHost } from '../../src/host/local/local-host';
import { httpClient } from './http-client';
import { sensitiveClaim, sensitiveClaimWarning } from '../support/sensitive-claim';

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
const query = (parameters: Record<string, string>) => `/api/instances?${new URLSearchParams(parameters).toString()}`;
let pushed: { status: number; body: any };

beforeAll(async () => {
  ({ host, api } = await startTestHost('nokey', { env: { SIGNALBOX_INDEX_HMAC_KEY: '' } }));
  pushed = await api.request('PUT', `/api/workflows/${sensitiveClaim.id}`, { json: sensitiveClaim });
  for (const [index, iban] of ['DE89370400440532013000', 'DE89370400440532013001'].entries()) {
    expect((await api.request('POST', '/api/instances', { json: { workflowId: sensitiveClaim.id, instanceId: `nk-${index}`, context: { amount: index * 10, iban } } })).status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await host?.stop();
});

describe('a sensitive field on a server without an index key', () => {
  it('pushing the definition stores it, with a warning naming the field and the setting', () => {
    expect(pushed.status).toBe(201);
    expect(pushed.body.warnings).toEqual([sensitiveClaimWarning]);
  });

  it.each(["iban = 'DE89370400440532013000'", "amount >= 0 and iban in ('DE89370400440532013000', 'x')"])('a search on it is a 400 naming the field and the setting: %s', async (filter) => {
    const found = await api.request('GET', query({ workflowId: sensitiveClaim.id, filter }));
    expect(found.status).toBe(400);
    expect(found.headers.get('content-type')).toBe('application/problem+json');
    expect(found.body.errors).toEqual([{ path: 'filter', message: expect.stringMatching(/"iban" is sensitive and this deployment has no index key \(SIGNALBOX_INDEX_HMAC_KEY\)/) }]);
  });

  it('a count on it is a 400 too', async () => {
    const counted = await api.request('GET', `/api/instance-counts?${new URLSearchParams({ workflowId: sensitiveClaim.id, filter: "iban = 'x'" }).toString()}`);
    expect(counted.status).toBe(400);
    expect(counted.body.errors[0].message).toMatch(/SIGNALBOX_INDEX_HMAC_KEY/);
  });

  it('a search on another field answers', async () => {
    const found = await api.request('GET', query({ workflowId: sensitiveClaim.id, filter: 'amount >= 10' }));
    expect(found.status).toBe(200);
    expect(found.body.items.map((instance: { id: string }) => instance.id)).toEqual(['nk-1']);
  });
});
