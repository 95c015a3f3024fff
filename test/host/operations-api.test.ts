/**
 * Issue 24, groups 3 and 4, over HTTP (local server, real loopback, Azurite): operations you can find
 * (GET /api/operations, newest first, filtered, paged; each keeps what it was), history entries that
 * name their operation, the triggers offered to an instance that did nothing to it, recovery with a
 * context patch, and bulk actions that refuse a workflow or state that does not exist.
 */
import { startTestHost, type TestHost } from '../support/local-host';

const claim = {
  id: 'opclaim',
  displayName: 'Claim',
  initialStateId: 'draft',
  states: {
    draft: {
      transitions: [
        { id: 'submit', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Submit' }] },
        {
          id: 'park',
          targetStateId: 'parked',
          conditions: [
            { type: 'triggerName', name: 'Park' },
            { type: 'triggerParameter', parameter: 'why', test: 'exists' },
          ],
        },
      ],
    },
    review: {
      // Bad data (no positive amount) faults the instance on entry.
      entryConditions: [{ type: 'expression', expression: '$exists(context.amount) and context.amount > 0' }],
      transitions: [{ id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] }],
    },
    parked: {},
    paid: {},
  },
};

let test: TestHost;
let api: TestHost['api'];

beforeAll(async () => {
  test = await startTestHost('opsapi');
  api = test.api;
  expect((await api.request('PUT', `/api/workflows/${claim.id}`, { json: claim })).status).toBe(201);
  expect((await api.request('PUT', '/api/workflows/opother', { json: { ...claim, id: 'opother' } })).status).toBe(201);
  expect((await api.request('PUT', '/api/workflows/oprepair', { json: { ...claim, id: 'oprepair', initialStateId: 'review' } })).status).toBe(201);
});

afterAll(async () => {
  await test?.host.stop();
});

async function start(instanceId: string, context: Record<string, unknown> = {}, workflowId = claim.id) {
  const created = await api.request('POST', '/api/instances', { json: { workflowId, instanceId, context } });
  expect(created.status).toBe(201);
  return created.body;
}

async function finished(accepted: { status: number; body: { operationId: string } }) {
  expect(accepted.status).toBe(202);
  const done = await api.waitForOperation(accepted.body.operationId);
  expect(done.status).toBe(200);
  return done.body;
}

describe('GET /api/operations', () => {
  it('lists operations newest first, each with what it was, filtered by kind, status, workflow and time, paged', async () => {
    await start('lo-1');
    await start('lo-2', {}, 'opother');
    const first = await finished(await api.request('POST', '/api/triggers', { json: { id: 'lo-t1', name: 'Park', subjects: ['lo-1'], parameters: { why: 'waiting for a receipt' } } }));
    const bulk = await finished(await api.request('POST', '/api/instances/bulk', { json: { action: 'suspend', filter: { workflowId: 'opother', stateId: 'draft' } } }));
    const second = await finished(await api.request('POST', '/api/triggers', { json: { id: 'lo-t2', name: 'Nothing', subjects: ['lo-1'] } }));

    const all = await api.request('GET', '/api/operations');
    expect(all.status).toBe(200);
    const ids = all.body.items.map((item: { id: string }) => item.id);
    // Newest first: the later trigger, the bulk action, the first trigger.
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(bulk.id));
    expect(ids.indexOf(bulk.id)).toBeLessThan(ids.indexOf(first.id));
    const listedFirst = all.body.items.find((item: { id: string }) => item.id === first.id);
    expect(listedFirst).toMatchObject({
      kind: 'trigger',
      status: 'succeeded',
      trigger: { name: 'Park', subjects: ['lo-1'], parameters: { why: 'waiting for a receipt' } },
      candidates: 1,
      summary: { transitioned: 1 },
    });
    // A list item is the operation without its per-instance results.
    expect(listedFirst.instances).toBeUndefined();
    expect(all.body.items.find((item: { id: string }) => item.id === bulk.id)).toMatchObject({ kind: 'bulk', bulk: { action: 'suspend', filter: { workflowId: 'opother', stateId: 'draft' } } });

    const bulks = await api.request('GET', '/api/operations?kind=bulk');
    expect(bulks.body.items.map((item: { kind: string }) => item.kind)).toEqual(bulks.body.items.map(() => 'bulk'));
    expect(bulks.body.items.map((item: { id: string }) => item.id)).toContain(bulk.id);

    const ofOther = await api.request('GET', '/api/operations?workflowId=opother');
    expect(ofOther.body.items.map((item: { id: string }) => item.id)).toEqual([bulk.id]);

    const failed = await api.request('GET', '/api/operations?status=failed');
    expect(failed.body.items).toEqual([]);

    const since = await api.request('GET', `/api/operations?createdSince=${encodeURIComponent(bulk.createdAt)}`);
    expect(since.body.items.map((item: { id: string }) => item.id)).toEqual(expect.arrayContaining([second.id, bulk.id]));
    expect(since.body.items.map((item: { id: string }) => item.id)).not.toContain(first.id);
    const before = await api.request('GET', `/api/operations?createdBefore=${encodeURIComponent(bulk.createdAt)}`);
    expect(before.body.items.map((item: { id: string }) => item.id)).toContain(first.id);
    expect(before.body.items.map((item: { id: string }) => item.id)).not.toContain(bulk.id);

    // Paged: one at a time, the same order, with continuation tokens like the other lists.
    const paged: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.request('GET', `/api/operations?maxPageSize=1${token ? `&continuationToken=${encodeURIComponent(token)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(1);
      paged.push(...page.body.items.map((item: { id: string }) => item.id));
      token = page.body.continuationToken;
    } while (token);
    expect(paged).toEqual(ids);
  });

  it('refuses an unknown filter value, naming the field', async () => {
    const bad = await api.request('GET', '/api/operations?kind=everything');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'kind', message: expect.any(String) }]);
    const badTime = await api.request('GET', '/api/operations?createdSince=yesterday');
    expect(badTime.status).toBe(400);
    expect(badTime.body.errors).toEqual([{ path: 'createdSince', message: expect.any(String) }]);
  });

  it('a single operation says what its trigger was', async () => {
    await start('lo-3');
    const operation = await finished(await api.request('POST', '/api/instances/lo-3/triggers', { json: { id: 'lo-t3', name: 'Submit', parameters: { note: 'first' } } }));
    expect(operation.trigger).toEqual({ name: 'Submit', subjects: ['lo-3'], parameters: { note: 'first' } });
  });
});

describe('history and offers', () => {
  it('history entries name their operation; a trigger that did nothing is among the offers of the instance', async () => {
    await start('ho-1');
    const nothing = await finished(await api.request('POST', '/api/triggers', { json: { id: 'ho-nothing', name: 'Approve', subjects: ['ho-1'] } }));
    expect(nothing.instances).toEqual([expect.objectContaining({ instanceId: 'ho-1', outcome: 'noTransition' })]);
    const submitted = await finished(await api.request('POST', '/api/instances/ho-1/triggers', { json: { id: 'ho-submit', name: 'Park', parameters: { why: 'x' } } }));

    const history = await api.request('GET', '/api/instances/ho-1/history');
    expect(history.body.items.map((entry: { event: string; operationId: string | null }) => [entry.event, entry.operationId])).toEqual([
      ['created', null],
      ['transitioned', submitted.id],
    ]);

    const offers = await api.request('GET', '/api/instances/ho-1/offers');
    expect(offers.status).toBe(200);
    expect(offers.body.items).toEqual([expect.objectContaining({ operationId: 'ho-nothing', triggerName: 'Approve', outcome: 'noTransition', fromStateId: 'draft', at: expect.any(String) })]);
    expect((await api.request('GET', '/api/instances/nobody/offers')).status).toBe(404);
  });

  it("a bulk action's history entry names the bulk operation", async () => {
    await start('ho-2');
    const bulk = await finished(await api.request('POST', '/api/instances/bulk', { json: { action: 'cancel', filter: { workflowId: claim.id, stateId: 'draft', subject: 'ho-2' } } }));
    expect(bulk.summary).toMatchObject({ cancelled: 1 });
    const history = await api.request('GET', '/api/instances/ho-2/history');
    expect(history.body.items.at(-1)).toMatchObject({ event: 'cancelled', operationId: bulk.id });
  });
});

describe('recovery with a context patch', () => {
  it('applies a JSON merge patch before the state is entered, and records it with who made it', async () => {
    // Bad data: the initial state's entry condition is false, so the instance faults as it is created.
    expect((await start('rc-1', { amount: -5, note: 'keep' }, 'oprepair')).status).toBe('faulted');

    // Without a patch, the same data faults again.
    const again = await api.request('POST', '/api/instances/rc-1/recover', { json: { stateId: 'review' } });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('faulted');

    const recovered = await api.request('POST', '/api/instances/rc-1/recover', { json: { stateId: 'review', context: { amount: 40, extra: { a: 1 } } } });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ status: 'waiting', stateId: 'review', context: { amount: 40, note: 'keep', extra: { a: 1 } } });

    const history = await api.request('GET', '/api/instances/rc-1/history');
    const last = history.body.items.at(-1);
    expect(last).toMatchObject({ event: 'recovered', toStateId: 'review', contextPatch: { amount: 40, extra: { a: 1 } }, by: 'anonymous' });
  });

  it('a null in the patch removes the key', async () => {
    await start('rc-2', { amount: 0, junk: true }, 'oprepair');
    const recovered = await api.request('POST', '/api/instances/rc-2/recover', { json: { stateId: 'review', context: { amount: 1, junk: null } } });
    expect(recovered.body.context).toEqual({ amount: 1 });
  });

  it('refuses a patch that is not a JSON object, naming the field', async () => {
    await start('rc-3');
    const bad = await api.request('POST', '/api/instances/rc-3/recover', { json: { stateId: 'review', context: [1, 2] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'context', message: expect.any(String) }]);
    const tooLarge = await api.request('POST', '/api/instances/rc-3/recover', { json: { stateId: 'review', context: { note: 'x'.repeat(64 * 1024) } } });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors).toEqual([{ path: 'context', message: expect.stringContaining('at most 65536') }]);
  });
});

describe('bulk actions refuse what does not exist', () => {
  it.each([
    ['a misspelt workflow', { action: 'cancel', filter: { workflowId: 'opclaimm' } }, 'filter.workflowId'],
    ['a state no version has', { action: 'suspend', filter: { workflowId: claim.id, stateId: 'nowhere' } }, 'filter.stateId'],
    ['recovery to a state no version has', { action: 'recover', filter: { workflowId: claim.id }, stateId: 'nowhere' }, 'stateId'],
  ])('%s: 400 naming the field, dry run or not, and no operation', async (_what, body, path) => {
    const bulkOperations = async () => (await api.request('GET', '/api/operations?kind=bulk')).body.items.map((item: { id: string }) => item.id);
    const before = await bulkOperations();
    for (const request of [body, { ...body, dryRun: true }]) {
      const refused = await api.request('POST', '/api/instances/bulk', { json: request });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ path, message: expect.any(String) }]);
    }
    expect(await bulkOperations()).toEqual(before);
  });
});
