/**
 * A client cannot send an internal trigger (issue 42): a body carrying any field the engine keeps for
 * itself is refused, 400 naming the field, on both trigger routes of the local server over loopback, and
 * has no effect (nothing recorded, the instance not moved). Refused, not stripped: a sender that believes
 * it can choose a timer transition or address a held trigger learns at once that it cannot.
 * The Functions app's routes: test/functions/internal-trigger-fields.azurite.test.ts.
 */
import { startInMemoryTestHost, type InMemoryTestHost } from '../support/in-memory-host';
import { internalTriggerFields, timedWorkflow } from '../support/internal-trigger-fields';

let host: InMemoryTestHost;

beforeAll(async () => {
  host = await startInMemoryTestHost();
  expect((await host.api.request('PUT', '/api/workflows/timed', { json: timedWorkflow('timed') })).status).toBe(201);
  expect((await host.api.request('POST', '/api/instances', { json: { workflowId: 'timed', instanceId: 'i1' } })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

describe.each([
  ['POST /api/triggers', '/api/triggers', { subjects: ['i1'] }],
  ['POST /api/instances/i1/triggers', '/api/instances/i1/triggers', {}],
])('%s', (_route, path, addressing) => {
  it.each(internalTriggerFields)('refuses a body with "%s", naming it, and records nothing', async (field, value) => {
    const id = `forged-${field}`;
    const response = await host.api.request('POST', path, { json: { id, name: 'timer', ...addressing, [field]: value } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: field }));
    expect((await host.api.request('GET', `/api/operations/${id}`)).status).toBe(404);
  });

  it('takes the same body without the field, as an ordinary trigger that cannot choose the timer transition', async () => {
    const sent = await host.api.request('POST', path, { json: { id: `plain-${path.length}`, name: 'timer', ...addressing }, headers: { prefer: 'wait=10' } });
    expect(sent.status).toBe(200);
    const instance = await host.api.request('GET', '/api/instances/i1');
    expect(instance.body).toMatchObject({ stateId: 'waiting', status: 'waiting' });
  });
});
