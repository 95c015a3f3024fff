/**
 * The function metadata the Functions host would receive, captured without the host: @azure/functions
 * hands every registration to `@azure/functions-core` (which only exists inside the host); a stand-in
 * records those calls. This checks the real output of app.http / df.app.* (bindings, routes, methods,
 * auth levels), so a wrong binding is caught here rather than on Azure.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import '../../functions/index';
import { NOT_FOUND_FUNCTION } from '../../functions/http';
import { CONSOLE_FUNCTION } from '../../functions/console';
import { hostRouter } from '../support/functions-host-router';

interface Binding {
  type: string;
  schedule?: string;
  direction: string;
  authLevel?: string;
  methods?: string[];
  route?: string;
}
interface FunctionMetadata {
  name: string;
  bindings: Record<string, Binding>;
}

const registered: FunctionMetadata[] = (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls.map(([metadata]) => metadata as FunctionMetadata);
const bindingsOf = (fn: FunctionMetadata) => Object.values(fn.bindings);
const triggerOf = (fn: FunctionMetadata) => bindingsOf(fn).find((binding) => binding.type.endsWith('Trigger'))!;
const httpFunctions = registered.filter((fn) => triggerOf(fn).type === 'httpTrigger');

/** Every route of shared/design/api.md, written out independently of the route table. */
const apiRoutes: Array<[method: string, route: string, authLevel: 'function' | 'anonymous']> = [
  ['PUT', 'workflows/{workflowId}', 'function'],
  ['POST', 'workflows', 'function'],
  ['GET', 'workflows/{workflowId}', 'function'],
  ['GET', 'workflows', 'function'],
  ['POST', 'instances', 'function'],
  ['GET', 'instances/{instanceId}', 'function'],
  ['GET', 'instances', 'function'],
  ['GET', 'instances/{instanceId}/history', 'function'],
  ['GET', 'instances/{instanceId}/history/{sequence}', 'function'],
  ['POST', 'instances/{instanceId}/triggers', 'function'],
  ['POST', 'instances/{instanceId}/recover', 'function'],
  ['POST', 'instances/{instanceId}/cancel', 'function'],
  ['GET', 'instances/{instanceId}/events', 'function'],
  ['POST', 'instances/{instanceId}/events/{eventId}/redeliver', 'function'],
  ['POST', 'triggers', 'function'],
  ['GET', 'operations/{operationId}', 'function'],
  // Operating a live system (issue 15).
  ['POST', 'workflows/{workflowId}/migrations', 'function'],
  ['DELETE', 'workflows/{workflowId}', 'function'],
  ['DELETE', 'instances/{instanceId}', 'function'],
  ['POST', 'instances/{instanceId}/suspend', 'function'],
  ['POST', 'instances/{instanceId}/resume', 'function'],
  ['POST', 'instances/bulk', 'function'],
  ['POST', 'workflows/validate', 'function'],
  ['GET', 'workflows/{workflowId}/diagram', 'function'],
  ['GET', 'instances/{instanceId}/available-triggers', 'function'],
  // Issue 24: operations newest first, and the triggers an instance was offered that changed nothing.
  ['GET', 'operations', 'function'],
  ['GET', 'instances/{instanceId}/offers', 'function'],
  // Issue 26: why an instance is not moving, and a workflow's instances counted by why.
  ['GET', 'instances/{instanceId}/waiting', 'function'],
  ['GET', 'workflows/{workflowId}/waiting', 'function'],
  // Flow control: one key of a workflow, and its run-time limit override.
  ['GET', 'flow/{workflowId}/keys/{key}', 'function'],
  ['PUT', 'flow/{workflowId}/keys/{key}/limit', 'function'],
  // Counting instances by a filter over their search fields (the search issue).
  ['GET', 'instance-counts', 'function'],
  // Health is anonymous per the API doc (probes carry no key); the OpenAPI document holds no data.
  ['GET', 'health', 'anonymous'],
  ['GET', 'openapi.json', 'anonymous'],
  ['GET', 'schemas/workflow-definition.json', 'anonymous'],
  // Issue 27: where the console signs in (no secret, read before sign-in), and who the caller is.
  ['GET', 'console-config', 'anonymous'],
  ['GET', 'me', 'function'],
  // Issue 38: a faulted trigger retried, one instance or every instance an operation faulted.
  ['POST', 'instances/{instanceId}/retry', 'function'],
  ['POST', 'operations/{operationId}/retry-faulted', 'function'],
  // Issue 39: human tasks.
  ['GET', 'tasks', 'function'],
  ['GET', 'tasks/{taskId}', 'function'],
  ['POST', 'tasks/{taskId}/claim', 'function'],
  ['POST', 'tasks/{taskId}/release', 'function'],
  ['POST', 'tasks/{taskId}/delegate', 'function'],
  ['POST', 'tasks/{taskId}/complete', 'function'],
  // Issue 41: what a workflow's operations cost, and the tenant's total.
  ['GET', 'workflows/{workflowId}/cost', 'function'],
  ['GET', 'cost', 'function'],
  // Issue 28: the tenants admin API (Signalbox.TenantAdmin).
  ['GET', 'tenants', 'function'],
  ['GET', 'tenants/{tenantId}', 'function'],
  ['PUT', 'tenants/{tenantId}', 'function'],
  ['DELETE', 'tenants/{tenantId}', 'function'],
  // Issue 28: every route again for each tenant, below /api/tenants/{tenantId}/ (one function; the shared router matches the rest).
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).map((method): [string, string, 'function'] => [method, 'tenants/{tenantId}/{*path}', 'function']),
];
// HEAD is a GET without its body (issue 12): every GET route takes it too.
apiRoutes.push(...apiRoutes.filter(([method]) => method === 'GET').map(([, route, authLevel]): (typeof apiRoutes)[number] => ['HEAD', route, authLevel]));

describe('registered functions', () => {
  it.each(apiRoutes)('%s /api/%s is one HTTP function with auth level %s', (method, route, authLevel) => {
    const matches = httpFunctions.filter((fn) => triggerOf(fn).route === route && triggerOf(fn).methods?.includes(method));
    expect(matches.map((fn) => fn.name)).toHaveLength(1);
    expect(triggerOf(matches[0]!).authLevel).toBe(authLevel);
  });

  // Issue 9 changed this: the catch-all was named `notFound`, which hid five routes on Azure (see the
  // router below); it is now named to sort last. Issue 18 adds the web console's function.
  it('registers no HTTP route beyond the API doc, except the problem+json catch-all, named to sort last, and the web console', () => {
    const documented = new Set(apiRoutes.map(([method, route]) => `${method} ${route}`));
    const extra = httpFunctions
      .filter((fn) => fn.name !== NOT_FOUND_FUNCTION && fn.name !== CONSOLE_FUNCTION)
      .flatMap((fn) => triggerOf(fn).methods!.map((method) => `${method} ${triggerOf(fn).route}`))
      .filter((key) => !documented.has(key));
    expect(extra).toEqual([]);
    const catchAll = httpFunctions.find((fn) => fn.name === NOT_FOUND_FUNCTION)!;
    expect(triggerOf(catchAll)).toMatchObject({ route: '{*path}', authLevel: 'anonymous' });
    const names = httpFunctions.map((fn) => fn.name);
    expect([...names].sort().at(-1)).toBe(NOT_FOUND_FUNCTION);
    expect([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())).at(-1)).toBe(NOT_FOUND_FUNCTION);
    expect(names.at(-1)).toBe(NOT_FOUND_FUNCTION);
  });

  it('serves the web console from one anonymous GET/HEAD function with no durable client', () => {
    const consoleFunction = httpFunctions.find((fn) => fn.name === CONSOLE_FUNCTION)!;
    expect(triggerOf(consoleFunction)).toMatchObject({ route: 'console/{*path}', authLevel: 'anonymous', methods: ['GET', 'HEAD'] });
    expect(
      bindingsOf(consoleFunction)
        .map((binding) => `${binding.direction} ${binding.type}`)
        .sort(),
    ).toEqual(['in httpTrigger', 'out http']);
  });

  it.each(['ordinal', 'ignoring case'] as const)("routes the console's paths to it, and no API path, when functions are ordered by name (%s)", (ordering) => {
    const route = hostRouter(httpFunctions, ordering);
    for (const path of ['console', 'console/', 'console/index.html', 'console/assets/index-1a2b.js']) {
      expect([path, route('GET', path)?.name]).toEqual([path, CONSOLE_FUNCTION]);
      expect([path, route('HEAD', path)?.name]).toEqual([path, CONSOLE_FUNCTION]);
    }
    // Other methods on the console's paths reach the catch-all (a problem+json 405/404).
    expect(route('POST', 'console/index.html')?.name).toBe(NOT_FOUND_FUNCTION);
    for (const [method, template] of apiRoutes) {
      for (const path of samplePaths(template)) expect(route(method, path)?.name).not.toBe(CONSOLE_FUNCTION);
    }
  });

  it('gives every API function a durable client input and an HTTP output', () => {
    for (const fn of httpFunctions.filter((candidate) => candidate.name !== NOT_FOUND_FUNCTION && candidate.name !== CONSOLE_FUNCTION)) {
      expect(
        bindingsOf(fn)
          .map((binding) => `${binding.direction} ${binding.type}`)
          .sort(),
      ).toEqual(['in durableClient', 'in httpTrigger', 'out http']);
    }
  });

  it('registers the orchestrators and the activities under the names the orchestrators call', () => {
    const byTrigger = (type: string) =>
      registered
        .filter((fn) => triggerOf(fn).type === type)
        .map((fn) => fn.name)
        .sort();
    expect(byTrigger('orchestrationTrigger')).toEqual(['applyTriggerBatch', 'eventDeliveryOrchestrator', 'timerOrchestrator', 'triggerOrchestrator']);
    expect(byTrigger('activityTrigger')).toEqual(['applyTrigger', 'attemptEventDelivery', 'beginOperation', 'completeOperation', 'findCandidates', 'fireTimer', 'recordProgress']);
    // The retention recipe: hourly, with a durable client to start its bulk delete operations.
    const retention = registered.find((fn) => fn.name === 'retentionPurge')!;
    expect(triggerOf(retention)).toMatchObject({ type: 'timerTrigger', schedule: '0 0 * * * *' });
    expect(bindingsOf(retention).some((binding) => binding.type === 'durableClient' && binding.direction === 'in')).toBe(true);
    // Issue 23: recovery of leftovers (outbox rows, event deliveries) is one timer function, every 10
    // minutes, so N workers cost one sweep (it ran at every worker's first HTTP call before); not at each
    // worker's start-up either (runOnStartup).
    const recovery = registered.find((fn) => fn.name === 'recoverLeftovers')!;
    expect(triggerOf(recovery)).toMatchObject({ type: 'timerTrigger', schedule: '0 */10 * * * *' });
    expect((triggerOf(recovery) as Binding & { runOnStartup?: boolean }).runOnStartup).toBeFalsy();
    expect(bindingsOf(recovery).some((binding) => binding.type === 'durableClient' && binding.direction === 'in')).toBe(true);
    expect(
      registered
        .filter((fn) => triggerOf(fn).type === 'timerTrigger')
        .map((fn) => fn.name)
        .sort(),
    ).toEqual(['recoverLeftovers', 'retentionPurge']);
    for (const fn of registered.filter((candidate) => triggerOf(candidate).type === 'activityTrigger')) {
      expect(bindingsOf(fn).some((binding) => binding.type === 'durableClient' && binding.direction === 'in')).toBe(true);
    }
  });

  it.each(['ordinal', 'ignoring case'] as const)('routes every API request to its own function when functions are ordered by name (%s), first match winning', (ordering) => {
    const route = hostRouter(httpFunctions, ordering);
    for (const [method, template] of apiRoutes) {
      for (const path of samplePaths(template)) {
        expect([method, path, route(method, path)?.name]).toEqual([method, path, functionFor(method, template).name]);
      }
    }
    // What no route takes reaches the catch-all.
    expect(route('GET', 'nothing/here')?.name).toBe(NOT_FOUND_FUNCTION);
    // (DELETE of a workflow is a route since issue 15; PATCH is not.)
    expect(route('PATCH', 'workflows/w1')?.name).toBe(NOT_FOUND_FUNCTION);
    expect(route('OPTIONS', 'triggers')?.name).toBe(NOT_FOUND_FUNCTION);
  });

  it('uses unique, valid function names', () => {
    const names = registered.map((fn) => fn.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9_-]{0,126}$/);
  });
});

function functionFor(method: string, template: string): FunctionMetadata {
  return httpFunctions.find((fn) => triggerOf(fn).route === template && triggerOf(fn).methods?.includes(method))!;
}

/** Concrete paths for a route template, including parameter values that look like other routes' literals. */
function samplePaths(template: string): string[] {
  const values = ['w1', 'health', 'openapi.json', 'triggers', 'history'];
  return values.map((value) => template.replace(/\{[^}]+\}/g, value));
}
