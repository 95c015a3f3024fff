/**
 * @module The route table of the API (shared/design/api.md). The local server matches requests against
 * it; the Functions app registers one HTTP function per entry. One set of handlers serves both.
 */
import { publicRoute } from './access';
import { consoleRoutes } from './system/console-routes';
import { tenantRoutes } from './system/tenant-routes';
import { eventRoutes } from './instances/instance-events';
import { z } from 'zod';
import { workflowDefinitionJsonSchema } from '../../engine/analysis';
import { healthSchema } from './api-schemas';
import { availableTriggerRoutes } from './instances/available-triggers';
import { taskRoutes } from './tasks/task-routes';
import { instanceOperationRoutes } from './instances/instance-operations';
import { instanceWaitingRoutes } from './instances/instance-waiting';
import { workflowAnalysisRoutes } from './workflows/workflow-analysis';
import { workflowOperationRoutes } from './workflows/workflow-operations';
import { workflowWaitingRoutes } from './workflows/workflow-waiting';
import { workflowCostRoutes } from './workflows/workflow-cost';
import { flowRoutes } from './workflows/flow-routes';
import { instanceRoutes } from './instances/instance-routes';
import { instanceTimeTravelRoutes } from './instances/instance-time-travel';
import { searchRoutes } from './instances/instance-search';
import { defineRoute } from './route';
import { buildOpenApiDocument } from './openapi';
import { triggerRoutes } from './operations/operation-routes';
import { retryFaultedRoutes } from './operations/retry-faulted-route';
import type { ApiResponse, ApiServices, RouteDefinition } from './types';
import { workflowRoutes } from './workflows/workflow-routes';
import { problem } from '../problem';
import { DEFAULT_TENANT_ID } from '../../storage/names';

const systemRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'health',
    methods: ['GET'],
    route: 'health',
    authLevel: 'anonymous',
    role: publicRoute,
    contract: {
      summary: 'Check that storage answers',
      tags: ['system'],
      responses: { 200: { description: 'Storage answers.', body: healthSchema }, 503: 'Storage does not answer.' },
    },
    async handle(_input, services) {
      const healthy = await services.checkHealth().catch(() => false);
      return healthy ? { status: 200, body: { status: 'ok' } } : problem(503, 'Unhealthy', 'Storage does not answer');
    },
  }),
  defineRoute({
    name: 'openApi',
    methods: ['GET'],
    route: 'openapi.json',
    // The API's description is public, as Azure's own OpenAPI endpoints are; it holds no data.
    authLevel: 'anonymous',
    role: publicRoute,
    contract: {
      summary: 'This document',
      tags: ['system'],
      withoutStorage: true,
      responses: { 200: { description: 'The OpenAPI 3.1 document of this API.', body: z.record(z.string(), z.unknown()) } },
    },
    async handle(_input, services) {
      return { status: 200, body: openApiDocument(services) };
    },
  }),
  defineRoute({
    name: 'workflowDefinitionSchema',
    methods: ['GET'],
    route: 'schemas/workflow-definition.json',
    // For editors and validators, like the OpenAPI document: public, and it holds no data.
    authLevel: 'anonymous',
    role: publicRoute,
    contract: {
      summary: 'The JSON Schema of a workflow definition',
      description: "JSON Schema 2020-12, with this server's condition and action types; for editors (`$schema`) and validators.",
      tags: ['system'],
      withoutStorage: true,
      responses: { 200: { description: 'The schema.', body: z.record(z.string(), z.unknown()), contentType: 'application/schema+json' } },
    },
    async handle(_input, services) {
      return { status: 200, headers: { 'content-type': 'application/schema+json' }, body: definitionSchema(services) };
    },
  }),
];

/** Grouped by resource: workflows, instances, operations (triggers submit them), the system. */
export const routes: readonly RouteDefinition[] = [
  ...workflowRoutes,
  ...workflowAnalysisRoutes,
  ...workflowOperationRoutes,
  ...workflowWaitingRoutes,
  ...workflowCostRoutes,
  ...flowRoutes,
  ...instanceRoutes,
  ...instanceTimeTravelRoutes,
  ...searchRoutes,
  ...eventRoutes,
  ...instanceOperationRoutes,
  ...availableTriggerRoutes,
  ...taskRoutes,
  ...instanceWaitingRoutes,
  ...triggerRoutes,
  ...retryFaultedRoutes,
  ...systemRoutes,
  ...consoleRoutes,
  ...tenantRoutes,
];

// Built once per registry (it decides the condition and action schemas); hosts hand each invocation its
// own view of one engine (Engine.withDelivery), all sharing the registry.
const documents = new WeakMap<object, Record<string, unknown>>();
function openApiDocument(services: ApiServices): Record<string, unknown> {
  const { registry } = services.engine.options;
  let document = documents.get(registry);
  if (!document) documents.set(registry, (document = buildOpenApiDocument(routes, registry)));
  return document;
}
const definitionSchemas = new WeakMap<object, Record<string, unknown>>();
function definitionSchema(services: ApiServices): Record<string, unknown> {
  let schema = definitionSchemas.get(services.engine);
  if (!schema) definitionSchemas.set(services.engine, (schema = workflowDefinitionJsonSchema(services.engine.options.registry)));
  return schema;
}

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly params: Record<string, string>;
  /** `default`, or the `{tenantId}` of `/api/tenants/{tenantId}/...` (not yet checked: the host resolves it). */
  readonly tenantId: string;
}

/** Each route's path split into parts (`name` for a `{param}` part) once, not on every request. */
let patterns: readonly { readonly route: RouteDefinition; readonly pattern: readonly { readonly part: string; readonly name: string | undefined }[] }[] | undefined;
function routePatterns() {
  return (patterns ??= routes.map((route) => ({ route, pattern: route.route.split('/').map((part) => ({ part, name: /^\{(\w+)\}$/.exec(part)?.[1] })) })));
}

/** The first segments of a tenant's paths: `/api/tenants/{tenantId}/` then any route of the table. */
const TENANT_SEGMENT = 'tenants';

/**
 * Matches a path below /api; `pathExists` is true when the path exists (for this method or others). Every
 * route is served for the default tenant at its own path and for any tenant below `tenants/{tenantId}/`
 * (but the deployment's own routes, the tenants admin API), so tenants are added here once, not per route.
 */
export function matchRoute(method: string, apiPath: string): { match?: RouteMatch; pathExists: boolean } {
  const segments = apiPath.split('/').filter(Boolean);
  if (segments.length >= 3 && segments[0] === TENANT_SEGMENT) {
    let tenantId: string;
    try {
      tenantId = decodeURIComponent(segments[1]!);
    } catch {
      return { pathExists: false };
    }
    return matchSegments(method, segments.slice(2), tenantId);
  }
  return matchSegments(method, segments, DEFAULT_TENANT_ID);
}

function matchSegments(method: string, segments: readonly string[], tenantId: string): { match?: RouteMatch; pathExists: boolean } {
  let pathExists = false;
  for (const { route, pattern } of routePatterns()) {
    if (tenantId !== DEFAULT_TENANT_ID && route.scope === 'deployment') continue;
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every(({ part, name }, index) => {
      const segment = segments[index]!;
      if (!name) return part === segment;
      try {
        params[name] = decodeURIComponent(segment);
      } catch {
        return false;
      }
      return true;
    });
    if (!matches) continue;
    pathExists = true;
    if (route.methods.includes(method.toUpperCase() as never)) return { match: { route, params, tenantId }, pathExists };
  }
  return { pathExists };
}

/** The methods routes take on this path below /api (HEAD wherever GET is); empty when no route has it. */
export function allowedMethods(apiPath: string): string[] {
  const methods = new Set<string>();
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) if (matchRoute(method, apiPath).match) methods.add(method);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}

/** The answer for a request no route takes: 405 when the path exists for other methods, else 404. */
export function unmatchedResponse(method: string, path: string): ApiResponse {
  const apiPath = path.startsWith('/api/') ? path.slice('/api/'.length) : undefined;
  if (apiPath !== undefined && matchRoute(method, apiPath).pathExists) {
    const response = problem(405, 'Method not allowed', `${method} is not allowed on ${path}`);
    return { ...response, headers: { ...response.headers, allow: allowedMethods(apiPath).join(', ') } };
  }
  return problem(404, 'Not found', `No route ${path}`);
}
