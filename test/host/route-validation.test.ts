/**
 * The route table is the validator (src/host/http/route.ts): every route's declared query, headers and
 * body are parsed before its handler runs, on both hosts alike. HTTP-level behaviour, so the server runs
 * in process on in-memory storage.
 */
import { routes } from '../../src/host/http/routes';
import { startInMemoryTestHost, type InMemoryTestHost } from '../support/in-memory-host';

let host: InMemoryTestHost;

beforeAll(async () => {
  host = await startInMemoryTestHost();
});

afterAll(async () => {
  await host?.stop();
});

/** A concrete path for a route template: each `{param}` a plain value, valid for every kind of id (a tenant id needs 3 characters); a history entry's sequence a number. */
const pathOf = (template: string) => `/api/${template.replace(/\{sequence\}/g, '1').replace(/\{\w+\}/g, 'x1a')}`;

describe('every route refuses an unknown query parameter, naming it, before doing anything', () => {
  it.each(routes.flatMap((route) => route.methods.map((method) => ({ name: route.name, method, path: pathOf(route.route) }))))('$name ($method $path?colour=red)', async ({ method, path }) => {
    const response = await host.api.request(method, `${path}?colour=red`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: 'colour' }));
  });

  it('the Azure Functions key parameter (`code`) is not one', async () => {
    expect((await host.api.request('GET', '/api/workflows?code=anything')).status).toBe(200);
  });
});

describe('bodies', () => {
  it('an unknown field is named as the field, not as the object that refused it', async () => {
    const response = await host.api.request('POST', '/api/instances', { json: { workflowId: 'w', instanceId: 'i1', colour: 'red' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ detail: 'The instance request is invalid', errors: [{ path: 'colour' }] });
  });

  it('a trigger for one instance that names subjects says why they are refused', async () => {
    const response = await host.api.request('POST', '/api/instances/i1/triggers', { json: { name: 'Go', subjects: ['other'] } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'subjects', message: 'subjects are not allowed here: the instance id is the subject' }]);
  });

  it('a route without a body takes an empty JSON one and refuses anything else', async () => {
    expect((await host.api.request('POST', '/api/instances/i1/cancel', { json: {} })).status).toBe(404);
    const refused = await host.api.request('POST', '/api/instances/i1/cancel', { body: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ path: '$' }));
  });
});

describe('path parameters arrive decoded and typed', () => {
  it('a workflow id with an encoded character is the id the body must name', async () => {
    const response = await host.api.request('PUT', `/api/workflows/${encodeURIComponent('a b')}`, { json: { id: 'other', displayName: 'A', initialStateId: 's', states: { s: {} } } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: 'id', message: expect.stringContaining('"a b"') }));
  });
});
