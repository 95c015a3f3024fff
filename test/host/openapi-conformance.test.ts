/**
 * The OpenAPI document describes what the server really sends: for a walk through the API on a real
 * local server (successes, problems, 304, text answers), every answer's status is declared for its
 * operation, each header a client reads (ETag, Location, Operation-Location, Retry-After,
 * Preference-Applied) is declared for that status, the media type is the declared one, and the body
 * validates (Ajv, JSON Schema 2020-12) against the declared schema, components and all.
 */
import { startTestHost } from '../support/local-host';
import Ajv2020 from 'ajv/dist/2020';
import { matchRoute } from '../../src/host/http/routes';
import type { LocalHost } from '../../src/host/local/local-host';
import { httpClient, type HttpResult } from './http-client';

const READ_HEADERS = ['etag', 'location', 'operation-location', 'retry-after', 'preference-applied'];

const definition = {
  id: 'conformance',
  displayName: 'Conformance',
  initialStateId: 'draft',
  states: {
    draft: {
      interests: ['team:{{context.team}}'],
      transitions: [{ id: 'submit', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Submit' }], actions: [{ type: 'setContext', values: { submitted: true } }] }],
    },
    done: {},
  },
};

type Json = Record<string, any>;

let host: LocalHost;
let api: ReturnType<typeof httpClient>;
let document: Json;
let ajv: Ajv2020;
/** What each checked answer was, for the test that no kind of answer was left out. */
const checked: string[] = [];

beforeAll(async () => {
  ({ host, api } = await startTestHost('conform'));
  document = (await api.request('GET', '/api/openapi.json')).body;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document, 'openapi.json');
});

afterAll(async () => {
  await host?.stop();
});

const pointer = (...keys: string[]) => keys.map((key) => encodeURIComponent(key.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/');

/** Sends the request and holds the answer to the document; returns the answer. */
async function conforming(method: string, path: string, options: Parameters<typeof api.request>[2] = {}): Promise<HttpResult> {
  const answer = await api.request(method, path, options);
  const url = new URL(path, host.url);
  const { match } = matchRoute(method === 'HEAD' ? 'GET' : method, url.pathname.slice('/api/'.length));
  expect(match).toBeDefined();
  const operationPath = `/${match!.route.route}`;
  const operation = document.paths[operationPath]?.[method.toLowerCase()];
  expect({ operation: `${method} ${operationPath}`, declared: operation !== undefined }).toEqual({ operation: `${method} ${operationPath}`, declared: true });
  const status = String(answer.status);
  const declared = operation.responses[status];
  expect({ operation: operation.operationId, status, declared: declared !== undefined }).toEqual({ operation: operation.operationId, status, declared: true });

  const declaredHeaders = Object.keys(declared.headers ?? {}).map((name) => name.toLowerCase());
  const sentHeaders = READ_HEADERS.filter((name) => answer.headers.has(name));
  expect({ operation: operation.operationId, status, undeclared: sentHeaders.filter((name) => !declaredHeaders.includes(name)) }).toEqual({ operation: operation.operationId, status, undeclared: [] });

  if (answer.text === '') {
    expect({ operation: operation.operationId, status, content: declared.content }).toEqual({ operation: operation.operationId, status, content: undefined });
  } else {
    const mediaType = answer.headers.get('content-type')!.split(';')[0]!.trim();
    const content = Object.entries<Json>(declared.content ?? {}).find(([type]) => type.split(';')[0]!.trim() === mediaType);
    expect({ operation: operation.operationId, status, mediaType, declared: content !== undefined }).toEqual({ operation: operation.operationId, status, mediaType, declared: true });
    const body = mediaType.endsWith('json') ? answer.body : answer.text;
    const validate = ajv.getSchema(`openapi.json#/${pointer('paths', operationPath, method.toLowerCase(), 'responses', status, 'content', content![0], 'schema')}`)!;
    expect(validate).toBeDefined();
    validate(body);
    expect({ operation: operation.operationId, status, errors: validate.errors ?? [] }).toEqual({ operation: operation.operationId, status, errors: [] });
  }
  checked.push(`${operation.operationId} ${status}`);
  return answer;
}

it('describes every answer of a walk through the API: status, headers, media type and body', async () => {
  // Workflows: created, refused, versioned, read, listed, 304, validated, drawn.
  const created = await conforming('PUT', '/api/workflows/conformance', { json: definition });
  expect(created.status).toBe(201);
  expect((await conforming('PUT', '/api/workflows/conformance', { json: definition })).status).toBe(409);
  expect((await conforming('PUT', '/api/workflows/conformance', { json: definition, headers: { 'if-match': '"stale"' } })).status).toBe(412);
  const versioned = await conforming('PUT', '/api/workflows/conformance', { json: definition, headers: { 'if-match': created.headers.get('etag')! } });
  expect(versioned.status).toBe(200);
  expect((await conforming('POST', '/api/workflows', { json: { ...definition, id: 'conformance-2' } })).status).toBe(201);
  const workflow = await conforming('GET', '/api/workflows/conformance');
  expect((await conforming('GET', '/api/workflows/conformance', { headers: { 'if-none-match': workflow.headers.get('etag')! } })).status).toBe(304);
  expect((await conforming('GET', '/api/workflows?maxPageSize=1')).body.items).toHaveLength(1);
  expect((await conforming('GET', '/api/workflows/nothing-here')).status).toBe(404);
  expect((await conforming('POST', '/api/workflows', { json: { id: 'broken' } })).status).toBe(400);
  expect((await conforming('POST', '/api/workflows', { body: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
  expect((await conforming('POST', '/api/workflows/validate', { json: definition })).status).toBe(200);
  expect((await conforming('GET', '/api/workflows/conformance/diagram')).status).toBe(200);

  // Instances: created, read, 304, listed, history, events, available triggers.
  expect((await conforming('POST', '/api/instances', { json: { workflowId: 'conformance', instanceId: 'c-1', context: { team: 'blue' } } })).status).toBe(201);
  expect((await conforming('POST', '/api/instances', { json: { workflowId: 'conformance', instanceId: 'c-1' } })).status).toBe(409);
  const instance = await conforming('GET', '/api/instances/c-1');
  expect((await conforming('GET', '/api/instances/c-1', { headers: { 'if-none-match': instance.headers.get('etag')! } })).status).toBe(304);
  expect((await conforming('GET', '/api/instances?workflowId=conformance&maxPageSize=10')).status).toBe(200);
  expect((await conforming('GET', '/api/instances?subject=team:blue')).status).toBe(200);
  expect((await conforming('GET', '/api/instances?maxPageSize=0')).status).toBe(400);
  expect((await conforming('GET', '/api/instances/c-1/history')).status).toBe(200);
  expect((await conforming('GET', '/api/instances/c-1/events')).status).toBe(200);
  expect((await conforming('GET', '/api/instances/c-1/available-triggers')).status).toBe(200);
  expect((await conforming('GET', '/api/instances/c-1/waiting')).status).toBe(200);
  expect((await conforming('GET', '/api/workflows/conformance/waiting')).status).toBe(200);

  // Triggers and operations: a dry run, 202 then 200, a wait answered 200, a repeated id with another body.
  expect((await conforming('POST', '/api/instances/c-1/triggers?dryRun=true', { json: { name: 'Submit' } })).status).toBe(200);
  const accepted = await conforming('POST', '/api/triggers', { json: { id: 'conform-1', name: 'Nothing', subjects: ['nobody'] } });
  expect(accepted.status).toBe(202);
  expect((await conforming('GET', '/api/operations/conform-1', { headers: { prefer: 'wait=10' } })).status).toBe(200);
  expect((await conforming('POST', '/api/triggers', { json: { id: 'conform-1', name: 'Other', subjects: ['nobody'] } })).status).toBe(409);
  expect((await conforming('POST', '/api/instances/c-1/triggers', { json: { name: 'Submit' }, headers: { prefer: 'wait=10' } })).status).toBe(200);
  expect((await conforming('GET', '/api/operations/nothing-here')).status).toBe(404);

  // Operating: suspend refused (complete), cancel refused, delete; system routes.
  expect((await conforming('POST', '/api/instances/c-1/suspend')).status).toBe(409);
  expect((await conforming('POST', '/api/instances', { json: { workflowId: 'conformance', instanceId: 'c-2' } })).status).toBe(201);
  expect((await conforming('POST', '/api/instances/c-2/cancel')).status).toBe(200);
  expect((await conforming('DELETE', '/api/instances/c-2')).status).toBe(204);
  expect((await conforming('GET', '/api/health')).status).toBe(200);
  expect((await conforming('GET', '/api/schemas/workflow-definition.json')).status).toBe(200);
  expect((await conforming('GET', '/api/openapi.json')).status).toBe(200);
});

it('checked successes, 304s and problems alike', () => {
  const statuses = new Set(checked.map((entry) => entry.split(' ')[1]));
  expect([...statuses].sort()).toEqual(expect.arrayContaining(['200', '201', '202', '204', '304', '400', '404', '409', '412', '415']));
});
