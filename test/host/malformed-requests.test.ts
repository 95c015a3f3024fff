/**
 * Malformed requests against the local server over real HTTP: each gets a 4xx problem+json answer
 * (naming the field where there is one) and changes nothing that the API can show. Validation is the
 * route table's (route.ts) and needs no storage: the server runs in process on in-memory storage.
 */
import { startInMemoryTestHost, type InMemoryTestHost } from '../support/in-memory-host';
import { httpClient } from './http-client';

const workflow = {
  id: 'counter',
  displayName: 'Counter',
  initialStateId: 'open',
  states: {
    open: { transitions: [{ id: 'add', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Add' }], actions: [{ type: 'setContext', expressions: { count: 'context.count + 1' } }] }] },
  },
};

interface MalformedCase {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly json?: unknown;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
  /** A JSON path the problem's `errors` must name. */
  readonly errorPath?: string;
}

const json = { 'content-type': 'application/json' };
const bigText = 'x'.repeat(70 * 1024);

const cases: MalformedCase[] = [
  { name: 'workflow: invalid JSON', method: 'PUT', path: '/api/workflows/counter2', body: '{"id": ', headers: json, status: 400, errorPath: '$' },
  { name: 'workflow: text/plain body', method: 'PUT', path: '/api/workflows/counter2', body: JSON.stringify({ ...workflow, id: 'counter2' }), headers: { 'content-type': 'text/plain' }, status: 415 },
  { name: 'workflow: no content type', method: 'POST', path: '/api/workflows', body: JSON.stringify({ ...workflow, id: 'counter2' }), headers: {}, status: 415 },
  { name: 'workflow: empty body', method: 'PUT', path: '/api/workflows/counter2', body: '', headers: json, status: 400 },
  { name: 'workflow: a JSON string', method: 'POST', path: '/api/workflows', json: 'counter', status: 400 },
  { name: 'workflow: an array', method: 'POST', path: '/api/workflows', json: [workflow], status: 400 },
  { name: 'workflow: null', method: 'POST', path: '/api/workflows', body: 'null', headers: json, status: 400 },
  { name: 'workflow: missing displayName', method: 'PUT', path: '/api/workflows/counter2', json: { ...workflow, id: 'counter2', displayName: undefined }, status: 400, errorPath: 'displayName' },
  { name: 'workflow: unknown top-level field', method: 'POST', path: '/api/workflows', json: { ...workflow, id: 'counter2', colour: 'red' }, status: 400 },
  { name: 'workflow: bad id characters', method: 'POST', path: '/api/workflows', json: { ...workflow, id: 'a b' }, status: 400, errorPath: 'id' },
  {
    name: 'workflow: unknown condition type',
    method: 'POST',
    path: '/api/workflows',
    json: { ...workflow, id: 'counter2', states: { open: { transitions: [{ id: 'add', targetStateId: 'open', conditions: [{ type: 'telepathy' }] }] } } },
    status: 400,
    errorPath: 'states.open.transitions[0].conditions[0].type',
  },
  {
    name: 'workflow: unknown action type',
    method: 'POST',
    path: '/api/workflows',
    json: { ...workflow, id: 'counter2', states: { open: { entryActions: [{ type: 'explode' }] } } },
    status: 400,
    errorPath: 'states.open.entryActions[0].type',
  },
  {
    name: 'workflow: duplicate transition ids',
    method: 'POST',
    path: '/api/workflows',
    json: {
      ...workflow,
      id: 'counter2',
      states: {
        open: {
          transitions: [
            { id: 'a', targetStateId: 'open' },
            { id: 'a', targetStateId: 'open' },
          ],
        },
      },
    },
    status: 400,
    errorPath: 'states.open.transitions[1].id',
  },
  {
    name: 'workflow: malformed JSONata',
    method: 'POST',
    path: '/api/workflows',
    json: { ...workflow, id: 'counter2', states: { open: { transitions: [{ id: 'a', targetStateId: 'open', conditions: [{ type: 'expression', expression: 'context.(' }] }] } } },
    status: 400,
    errorPath: 'states.open.transitions[0].conditions[0].expression',
  },
  { name: 'workflow: missing initial state', method: 'POST', path: '/api/workflows', json: { ...workflow, id: 'counter2', initialStateId: 'closed' }, status: 400, errorPath: 'initialStateId' },
  { name: 'workflow: id differs from route', method: 'PUT', path: '/api/workflows/other', json: workflow, status: 400, errorPath: 'id' },
  { name: 'workflow: version is not a number', method: 'GET', path: '/api/workflows/counter?version=abc', status: 400, errorPath: 'version' },
  { name: 'workflow: version 0', method: 'GET', path: '/api/workflows/counter?version=0', status: 400, errorPath: 'version' },
  { name: 'instance: missing workflowId', method: 'POST', path: '/api/instances', json: { instanceId: 'c9' }, status: 400, errorPath: 'workflowId' },
  { name: 'instance: bad id characters', method: 'POST', path: '/api/instances', json: { workflowId: 'counter', instanceId: 'has space' }, status: 400, errorPath: 'instanceId' },
  { name: 'instance: context is an array', method: 'POST', path: '/api/instances', json: { workflowId: 'counter', instanceId: 'c9', context: [1] }, status: 400, errorPath: 'context' },
  { name: 'instance: unknown field', method: 'POST', path: '/api/instances', json: { workflowId: 'counter', instanceId: 'c9', state: 'open' }, status: 400 },
  // Issue 9, item 5: the prefix of raised trigger ids is reserved, so no client trigger can forge one.
  { name: 'trigger: reserved raised: id prefix', method: 'POST', path: '/api/triggers', json: { id: 'raised:2:c1:t.go:0', name: 'Add', subjects: ['c1'] }, status: 400, errorPath: 'id' },
  { name: 'trigger: no subjects', method: 'POST', path: '/api/triggers', json: { id: 'bad-1', name: 'Add' }, status: 400, errorPath: 'subjects' },
  { name: 'trigger: empty subjects', method: 'POST', path: '/api/triggers', json: { id: 'bad-2', name: 'Add', subjects: [] }, status: 400, errorPath: 'subjects' },
  {
    name: 'trigger: 101 subjects',
    method: 'POST',
    path: '/api/triggers',
    json: { id: 'bad-3', name: 'Add', subjects: Array.from({ length: 101 }, (_, i) => `s${i}`) },
    status: 400,
    errorPath: 'subjects',
  },
  { name: 'trigger: over 64 KiB', method: 'POST', path: '/api/triggers', json: { id: 'bad-4', name: 'Add', subjects: ['c1'], parameters: { text: bigText } }, status: 400 },
  {
    name: 'trigger: body over 1 MiB',
    method: 'POST',
    path: '/api/triggers',
    body: JSON.stringify({ id: 'bad-5', name: 'Add', subjects: ['c1'], parameters: { text: 'y'.repeat(1100 * 1024) } }),
    headers: json,
    status: 413,
  },
  { name: 'trigger: no name', method: 'POST', path: '/api/triggers', json: { id: 'bad-6', subjects: ['c1'] }, status: 400, errorPath: 'name' },
  { name: 'trigger: parameters not an object', method: 'POST', path: '/api/triggers', json: { id: 'bad-7', name: 'Add', subjects: ['c1'], parameters: [1, 2] }, status: 400, errorPath: 'parameters' },
  { name: 'trigger: subject not a string', method: 'POST', path: '/api/triggers', json: { id: 'bad-8', name: 'Add', subjects: [42] }, status: 400, errorPath: 'subjects[0]' },
  { name: 'trigger: id with spaces', method: 'POST', path: '/api/triggers', json: { id: 'bad 9', name: 'Add', subjects: ['c1'] }, status: 400, errorPath: 'id' },
  { name: 'trigger: unknown field', method: 'POST', path: '/api/triggers', json: { id: 'bad-10', name: 'Add', subjects: ['c1'], urgency: 1 }, status: 400 },
  { name: 'trigger: invalid JSON', method: 'POST', path: '/api/triggers', body: '{name: Add}', headers: json, status: 400 },
  { name: 'instance trigger: names subjects', method: 'POST', path: '/api/instances/c1/triggers', json: { id: 'bad-11', name: 'Add', subjects: ['c2'] }, status: 400, errorPath: 'subjects' },
  { name: 'recover: missing stateId', method: 'POST', path: '/api/instances/c1/recover', json: {}, status: 400, errorPath: 'stateId' },
  { name: 'recover: stateId not a string', method: 'POST', path: '/api/instances/c1/recover', json: { stateId: 7 }, status: 400, errorPath: 'stateId' },
  { name: 'instances: unknown status', method: 'GET', path: '/api/instances?status=sleeping', status: 400, errorPath: 'status' },
  { name: 'instances: page size 0', method: 'GET', path: '/api/instances?maxPageSize=0', status: 400, errorPath: 'maxPageSize' },
  { name: 'instances: unknown query parameter', method: 'GET', path: '/api/instances?colour=red', status: 400 },
  // Issue 9: deep JSON answered 500, `__proto__` keys vanished silently, 5,000 interests cost 5,000 writes.
  {
    name: 'trigger: JSON nested 1,500 deep',
    method: 'POST',
    path: '/api/triggers',
    body: `{"id":"bad-12","name":"Add","subjects":["c1"],"parameters":{"x":${'['.repeat(1500)}${']'.repeat(1500)}}}`,
    headers: json,
    status: 400,
    errorPath: '$',
  },
  {
    name: 'instance: a context nested 1,500 deep',
    method: 'POST',
    path: '/api/instances',
    body: `{"workflowId":"counter","instanceId":"c9","context":{"x":${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}}}`,
    headers: json,
    status: 400,
    errorPath: '$',
  },
  {
    name: 'trigger: a __proto__ key',
    method: 'POST',
    path: '/api/triggers',
    body: '{"id":"bad-13","name":"Add","subjects":["c1"],"parameters":{"a":{"__proto__":{"admin":true}}}}',
    headers: json,
    status: 400,
    errorPath: 'parameters.a.__proto__',
  },
  {
    name: 'instance: a __proto__ key in the context',
    method: 'POST',
    path: '/api/instances',
    body: '{"workflowId":"counter","instanceId":"c9","context":{"__proto__":{"count":1}}}',
    headers: json,
    status: 400,
    errorPath: 'context.__proto__',
  },
  {
    name: 'workflow: 5,000 interests on one state',
    method: 'PUT',
    path: '/api/workflows/counter2',
    json: { ...workflow, id: 'counter2', states: { open: { interests: Array.from({ length: 5000 }, (_, i) => `topic:${i}`) } } },
    status: 400,
    errorPath: 'states.open.interests',
  },
  { name: 'unknown route', method: 'GET', path: '/api/nothing-here', status: 404 },
  { name: 'outside /api', method: 'GET', path: '/index.html', status: 404 },
  // DELETE of a workflow is a route since issue 15 (409 while it has instances); PATCH is not.
  { name: 'method not allowed on workflows', method: 'PATCH', path: '/api/workflows/counter', json: {}, status: 405 },
  { name: 'method not allowed on triggers', method: 'PATCH', path: '/api/triggers', json: {}, status: 405 },
];

let host: InMemoryTestHost;
let api: ReturnType<typeof httpClient>;

beforeAll(async () => {
  host = await startInMemoryTestHost();
  ({ api } = host);
  expect((await api.request('PUT', '/api/workflows/counter', { json: workflow })).status).toBe(201);
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'counter', instanceId: 'c1', context: { count: 0 } } })).status).toBe(201);
});

afterAll(async () => {
  await host?.stop();
});

/** Everything the API can show that a bad request might have changed. */
async function snapshot(): Promise<string> {
  const [workflows, instances, counter, c1, c1History] = await Promise.all([
    api.request('GET', '/api/workflows'),
    api.request('GET', '/api/instances'),
    api.request('GET', '/api/workflows/counter'),
    api.request('GET', '/api/instances/c1'),
    api.request('GET', '/api/instances/c1/history'),
  ]);
  return JSON.stringify([workflows.body, instances.body, counter.headers.get('etag'), c1.body, c1History.body]);
}

it('has at least 30 malformed cases', () => {
  expect(cases.length).toBeGreaterThanOrEqual(30);
});

it.each(cases)('$name → $status, problem+json, nothing changed', async (malformed) => {
  const before = await snapshot();
  const response = await api.request(malformed.method, malformed.path, {
    ...(malformed.json !== undefined ? { json: malformed.json } : {}),
    ...(malformed.body !== undefined ? { body: malformed.body } : {}),
    ...(malformed.headers ? { headers: malformed.headers } : {}),
  });
  expect(response.status).toBe(malformed.status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body).toMatchObject({ status: malformed.status, title: expect.any(String), detail: expect.any(String) });
  if (malformed.errorPath) expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(malformed.errorPath);
  const triggerId = (malformed.json as { id?: unknown } | undefined)?.id;
  if (typeof triggerId === 'string' && malformed.path.includes('triggers')) {
    expect((await api.request('GET', `/api/operations/${encodeURIComponent(triggerId)}`)).status).toBe(404);
  }
  expect(await snapshot()).toBe(before);
});

it('checks the function key when SIGNALBOX_API_KEY is set (health stays open)', async () => {
  const keyed = await startInMemoryTestHost({ apiKey: 'local-test-key' });
  try {
    const client = httpClient(keyed.url);
    const refused = await client.request('GET', '/api/workflows');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await client.request('GET', '/api/workflows', { headers: { 'x-functions-key': 'wrong' } })).status).toBe(401);
    expect((await client.request('GET', '/api/workflows', { headers: { 'x-functions-key': 'local-test-key' } })).status).toBe(200);
    expect((await client.request('GET', '/api/workflows?code=local-test-key')).status).toBe(200);
    expect((await client.request('GET', '/api/health')).status).toBe(200);
  } finally {
    await keyed.stop();
  }
});
