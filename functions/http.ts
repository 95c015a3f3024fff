/**
 * @module The HTTP API on Azure Functions: one function per entry of the shared route table
 * (src/host/http/routes.ts), each translating HttpRequest → ApiRequest and ApiResponse → HttpResponseInit
 * around the same handler the local server runs. Durable's built-in management routes are not exposed.
 */
import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { finishResponse, preflightResponse, routingMethod, type CorsPolicy } from '../src/host/http/http-manners';
import { crossSiteRefusal } from '../src/host/http/request-guard';
import { allowedMethods, matchRoute, routes, unmatchedResponse } from '../src/host/http/routes';
import { servicesForTenant } from '../src/host/http/tenant-scope';
import { bodyLimitOf, bodyText, checkBodySize, encodeResponse } from '../src/host/http/transport';
import { MAX_BODY_SIZE_IN_BYTES, type ApiRequest, type ApiResponse, type RouteDefinition } from '../src/host/http/types';
import { problemResponse } from '../src/host/problem';
import { accessPolicyFromEnv, appChecksCredentials, checkAccess, type AccessPolicy, type TenantGrant } from '../src/host/http/access';
import type { Actor } from '../src/engine/model';
import { corsAllowedOrigins, maxCreateBodyBytes } from '../src/host/settings';
import { withSpan } from './telemetry';
import { inInvocation, servicesFor } from './app-services';
import { DEFAULT_TENANT_ID } from '../src/host/tenants';

/** Reads the body, refusing more than `maxBodyBytes` (declared or sent), as the local server does. */
export async function toApiRequest(
  request: HttpRequest,
  actor?: Actor,
  tenantId = DEFAULT_TENANT_ID,
  tenants?: TenantGrant,
  params: Record<string, string> = { ...request.params },
  maxBodyBytes: number = MAX_BODY_SIZE_IN_BYTES,
): Promise<ApiRequest> {
  checkBodySize(Number(request.headers.get('content-length') ?? 0), maxBodyBytes);
  const body = Buffer.from(await request.arrayBuffer());
  checkBodySize(body.length, maxBodyBytes);
  return {
    method: request.method.toUpperCase(),
    url: new URL(request.url),
    params,
    headers: { get: (name) => request.headers.get(name) },
    bodyText: bodyText(body),
    maxBodyBytes,
    // The Functions host checked the function key before this runs (authLevel `function`), or the app did (access.ts).
    principal: actor?.id ?? 'function-key',
    ...(actor ? { actor } : {}),
    tenantId,
    ...(tenants ? { tenants } : {}),
  };
}

export function toHttpResponse(response: ApiResponse): HttpResponseInit {
  return encodeResponse(response);
}

/** CORS as the app setting says; on Azure the platform's CORS (same origins, from infra) answers first. */
const cors: CorsPolicy = { allowedOrigins: corsAllowedOrigins() };

/**
 * Without SIGNALBOX_AUTH_ISSUERS the Functions host checks function keys (authLevel `function`) and every
 * key acts with SIGNALBOX_API_KEY_ROLES; with issuers the functions are anonymous at the platform, so that
 * bearer tokens reach the app, which then checks tokens and SIGNALBOX_API_KEY itself (function keys are
 * then not consulted: the platform does not tell the app which key a request carried).
 */
const platformChecksKeys = !appChecksCredentials(process.env);
let accessPolicy: AccessPolicy | undefined;
/** SIGNALBOX_MAX_CREATE_BODY_MB, read once (a bad value fails the first creation request, and is logged). */
let createBodyLimitSetting: { readonly value: number | undefined } | undefined;
function createBodyLimit(): number | undefined {
  return (createBodyLimitSetting ??= { value: maxCreateBodyBytes(process.env) }).value;
}
function access(): AccessPolicy {
  return (accessPolicy ??= accessPolicyFromEnv(process.env, platformChecksKeys));
}

export function handleRoute(
  route: RouteDefinition,
  request: HttpRequest,
  context: InvocationContext,
  policy: CorsPolicy = cors,
  accessPolicyOverride?: AccessPolicy,
  tenant: { readonly tenantId: string; readonly params: Record<string, string> } = { tenantId: DEFAULT_TENANT_ID, params: { ...request.params } },
): Promise<HttpResponseInit> {
  return inInvocation(context, async () => {
    const finish = (response: ApiResponse) => toHttpResponse(finishResponse({ method: request.method, headers: request.headers }, response, policy));
    // Fetch metadata and Origin as on the local server: a page on another origin cannot change anything.
    // Host is not checked here: the platform routes by host name, so a rebound name never arrives.
    const crossSite = crossSiteRefusal({ method: request.method, headers: request.headers }, policy);
    if (crossSite) return finish(crossSite);
    try {
      const checked = await checkAccess(route.role, { headers: request.headers, url: new URL(request.url) }, accessPolicyOverride ?? access());
      if (checked.refusal) return finish(checked.refusal);
      const apiRequest = await toApiRequest(request, checked.actor, tenant.tenantId, checked.tenants, tenant.params, bodyLimitOf(route, createBodyLimit()));
      const scoped = await servicesForTenant(
        { route, tenantId: tenant.tenantId },
        checked.tenants,
        async () => (await servicesFor(context))!,
        (tenantId) => servicesFor(context, tenantId),
      );
      if (scoped.refusal) return finish(scoped.refusal);
      return finish(await withSpan(`Http.${route.name}`, {}, () => route.handle(apiRequest, scoped.services)));
    } catch (error) {
      return finish(problemResponse(error, (message, cause) => context.error(message, cause)));
    }
  });
}

/** Paths no route takes: a CORS preflight, else a problem+json 404, or 405 when the path exists for other methods. */
export async function handleUnmatched(request: HttpRequest, _context?: InvocationContext, policy: CorsPolicy = cors, apiPath: string = request.params.path ?? ''): Promise<HttpResponseInit> {
  const response = preflightResponse(request.method, request.headers, allowedMethods(apiPath), policy) ?? unmatchedResponse(request.method, `/api/${apiPath}`);
  return toHttpResponse(finishResponse({ method: request.method, headers: request.headers }, response, policy));
}

/**
 * Every route of a tenant (`/api/tenants/{tenantId}/...`): one function whose path the shared router
 * matches (routes.ts), so the route table is not registered once per tenant. Its auth level is the API's
 * (`function` where the platform checks keys), so a tenant's routes are never less guarded than the
 * default tenant's; a tenant's public routes (health) then need a key too.
 */
export const TENANT_ROUTES_FUNCTION = 'tenantRoutes';

export async function handleTenantRoute(request: HttpRequest, context: InvocationContext, policy: CorsPolicy = cors, accessPolicyOverride?: AccessPolicy): Promise<HttpResponseInit> {
  const tenantPath = `tenants/${encodeURIComponent(request.params.tenantId ?? '')}/${request.params.path ?? ''}`;
  const { match } = matchRoute(routingMethod(request.method), tenantPath);
  if (!match || request.method.toUpperCase() === 'OPTIONS') return handleUnmatched(request, context, policy, tenantPath);
  return handleRoute(match.route, request, context, policy, accessPolicyOverride, { tenantId: match.tenantId, params: match.params });
}

/**
 * The catch-all's name sorts after every other function's, whether names are compared ordinally or
 * ignoring case, and it is registered last. The Functions host tries HTTP functions in name order and the
 * first whose route matches wins (Azure/azure-functions-host#9876): named `notFound`, the catch-all
 * answered putWorkflow, sendTrigger, sendInstanceTrigger, recoverInstance and openApi with 404. A test
 * routes every API request the way the host does (test/functions/registration.test.ts).
 */
export const NOT_FOUND_FUNCTION = 'zzzNotFound';
const allMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

for (const route of routes) {
  app.http(route.name, {
    // HEAD is a GET without its body (finishResponse drops it).
    methods: route.methods.includes('GET') ? [...route.methods, 'HEAD'] : [...route.methods],
    route: route.route,
    authLevel: platformChecksKeys ? route.authLevel : 'anonymous',
    extraInputs: [df.input.durableClient()],
    handler: (request, context) => handleRoute(route, request, context),
  });
}

app.http(TENANT_ROUTES_FUNCTION, {
  methods: [...allMethods],
  route: 'tenants/{tenantId}/{*path}',
  authLevel: platformChecksKeys ? 'function' : 'anonymous',
  extraInputs: [df.input.durableClient()],
  handler: (request, context) => handleTenantRoute(request, context),
});

// Last by name and by registration (see NOT_FOUND_FUNCTION), so this sees only what nothing else matched.
// Anonymous: it reveals nothing and answers before any key check would matter.
app.http(NOT_FOUND_FUNCTION, { methods: [...allMethods], route: '{*path}', authLevel: 'anonymous', handler: (request, context) => handleUnmatched(request, context) });
