/**
 * The Functions app without SIGNALBOX_INDEX_HMAC_KEY, on its real routes (the HTTP functions registered
 * by functions/http.ts, captured from @azure/functions-core) over a HostCore on the Azurite jest starts:
 * a search or a count on a sensitive field is a 400 problem+json naming the field and the setting, not a
 * 500, and the push of the definition warns. test/host/search-without-key.test.ts holds the local server
 * to the same.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { HttpRequest, type HttpHandler, type HttpResponseInit } from '@azure/functions';
import { setHostCore } from '../../functions/app-services';
import { createAzurePorts } from '../../src/host/azure-ports';
import { silentLogger } from '../../src/host/local/logger';
import { createHostCore } from '../../src/host/host-services';
import { prefixedStorageNames } from '../../src/storage/names';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { durableInvocationContext } from '../support/invocation-context';
import { sensitiveClaim, sensitiveClaimWarning } from '../support/sensitive-claim';

const registered = () => (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls as Array<[{ name: string }, HttpHandler]>;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** Calls the function registered as `name`, with the route parameters the host would bind. */
async function call(name: string, method: string, path: string, options: { params?: Record<string, string>; json?: unknown } = {}): Promise<Answer> {
  const handler = registered().find(([metadata]) => metadata.name === name)?.[1];
  if (!handler) throw new Error(`no function ${name}`);
  const request = new HttpRequest({
    method,
    url: `https://signalbox.example/api/${path}`,
    headers: options.json !== undefined ? { 'content-type': 'application/json' } : {},
    params: options.params ?? {},
    ...(options.json !== undefined ? { body: { string: JSON.stringify(options.json) } } : {}),
  });
  const response = (await handler(request, durableInvocationContext('inv-nokey'))) as HttpResponseInit;
  const headers = Object.fromEntries(Object.entries((response.headers ?? {}) as Record<string, string>).map(([key, value]) => [key.toLowerCase(), value]));
  return { status: response.status ?? 200, headers, body: typeof response.body === 'string' ? JSON.parse(response.body) : undefined };
}

let pushed: Answer;

beforeAll(async () => {
  require('../../functions/http');
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fnnokey')) });
  setHostCore(createHostCore({ ports, logger: silentLogger, env }));
  pushed = await call('putWorkflow', 'PUT', `workflows/${sensitiveClaim.id}`, { params: { workflowId: sensitiveClaim.id }, json: sensitiveClaim });
  expect((await call('createInstance', 'POST', 'instances', { json: { workflowId: sensitiveClaim.id, instanceId: 'fk-1', context: { amount: 5, iban: 'DE89370400440532013000' } } })).status).toBe(201);
});

afterAll(() => {
  setHostCore(undefined);
});

describe('a sensitive field on the Functions app without an index key', () => {
  it('the push stores the definition with a warning naming the field and the setting', () => {
    expect(pushed.status).toBe(201);
    expect(pushed.body.warnings).toEqual([sensitiveClaimWarning]);
  });

  it.each([
    ['listInstances', 'instances'],
    ['countInstances', 'instance-counts'],
  ])('%s filtered on it is a 400 problem naming the field and the setting', async (name, route) => {
    const answer = await call(name, 'GET', `${route}?${new URLSearchParams({ workflowId: sensitiveClaim.id, filter: "iban = 'DE89370400440532013000'" }).toString()}`);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.body.errors).toEqual([{ path: 'filter', message: 'position 1: "iban" is sensitive and this deployment has no index key (SIGNALBOX_INDEX_HMAC_KEY): it cannot be searched' }]);
  });

  it('a search on another field answers', async () => {
    const answer = await call('listInstances', 'GET', `instances?${new URLSearchParams({ workflowId: sensitiveClaim.id, filter: 'amount = 5' }).toString()}`);
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((instance: { id: string }) => instance.id)).toEqual(['fk-1']);
  });
});
