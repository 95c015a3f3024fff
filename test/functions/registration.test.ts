/**
 * The function metadata the Functions host would receive, captured without the host: @azure/functions
 * hands every registration to `@azure/functions-core` (which only exists inside the host); a stand-in
 * records those calls. This checks the real output of app.http / df.app.* (bindings, routes, methods,
 * auth levels), so a wrong binding is caught here rather than on Azure.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import '../../functions/index';

interface Binding {
  type: string;
  direction: string;
  authLevel?: string;
  methods?: string[];
  route?: string;
}
interface FunctionMetadata {
  name: string;
  bindings: Record<string, Binding>;
}

const registered: FunctionMetadata[] = (jest.requireMock('@azure/functions-core') as { registerFunction: jest.Mock }).registerFunction.mock.calls.map(
  ([metadata]) => metadata as FunctionMetadata,
);
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
  ['POST', 'instances/{instanceId}/triggers', 'function'],
  ['POST', 'instances/{instanceId}/recover', 'function'],
  ['POST', 'instances/{instanceId}/cancel', 'function'],
  ['POST', 'triggers', 'function'],
  ['GET', 'operations/{operationId}', 'function'],
  // Health is anonymous per the API doc (probes carry no key); the OpenAPI document holds no data.
  ['GET', 'health', 'anonymous'],
  ['GET', 'openapi.json', 'anonymous'],
  ['GET', 'schemas/workflow-definition.json', 'anonymous'],
];
// HEAD is a GET without its body (issue 12): every GET route takes it too.
apiRoutes.push(...apiRoutes.filter(([method]) => method === 'GET').map(([, route, authLevel]): (typeof apiRoutes)[number] => ['HEAD', route, authLevel]));

describe('registered functions', () => {
  it.each(apiRoutes)('%s /api/%s is one HTTP function with auth level %s', (method, route, authLevel) => {
    const matches = httpFunctions.filter((fn) => triggerOf(fn).route === route && triggerOf(fn).methods?.includes(method));
    expect(matches.map((fn) => fn.name)).toHaveLength(1);
    expect(triggerOf(matches[0]!).authLevel).toBe(authLevel);
  });

  it('registers no HTTP route beyond the API doc, except the problem+json catch-all', () => {
    const documented = new Set(apiRoutes.map(([method, route]) => `${method} ${route}`));
    const extra = httpFunctions
      .filter((fn) => fn.name !== 'notFound')
      .flatMap((fn) => triggerOf(fn).methods!.map((method) => `${method} ${triggerOf(fn).route}`))
      .filter((key) => !documented.has(key));
    expect(extra).toEqual([]);
    const catchAll = httpFunctions.find((fn) => fn.name === 'notFound')!;
    expect(triggerOf(catchAll)).toMatchObject({ route: '{*path}', authLevel: 'anonymous' });
  });

  it('gives every API function a durable client input and an HTTP output', () => {
    for (const fn of httpFunctions.filter((candidate) => candidate.name !== 'notFound')) {
      expect(bindingsOf(fn).map((binding) => `${binding.direction} ${binding.type}`).sort()).toEqual(['in durableClient', 'in httpTrigger', 'out http']);
    }
  });

  it('registers the orchestrators and the activities under the names the orchestrators call', () => {
    const byTrigger = (type: string) => registered.filter((fn) => triggerOf(fn).type === type).map((fn) => fn.name).sort();
    expect(byTrigger('orchestrationTrigger')).toEqual(['applyTriggerBatch', 'timerOrchestrator', 'triggerOrchestrator']);
    expect(byTrigger('activityTrigger')).toEqual(['applyTrigger', 'beginOperation', 'completeOperation', 'findCandidates', 'fireTimer']);
    for (const fn of registered.filter((candidate) => triggerOf(candidate).type === 'activityTrigger')) {
      expect(bindingsOf(fn).some((binding) => binding.type === 'durableClient' && binding.direction === 'in')).toBe(true);
    }
  });

  it('uses unique, valid function names', () => {
    const names = registered.map((fn) => fn.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9_-]{0,126}$/);
  });
});
