/**
 * @module The HTTP API on Azure Functions: one function per entry of the shared route table
 * (src/host/http/routes.ts), each translating HttpRequest → ApiRequest and ApiResponse → HttpResponseInit
 * around the same handler the local server runs. Durable's built-in management routes are not exposed,
 * and there is no catch-all route (see the end of this file).
 */
import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { TooLargeError } from '../src/engine/errors';
import { routes } from '../src/host/http/routes';
import { MAX_BODY_SIZE_IN_BYTES, type ApiRequest, type ApiResponse, type RouteDefinition } from '../src/host/http/types';
import { problemResponse } from '../src/host/problem';
import { withSpan } from './telemetry';
import { inInvocation, servicesFor } from './wiring';

/** Reads the body, refusing more than MAX_BODY_SIZE_IN_BYTES, as the local server does. */
export async function toApiRequest(request: HttpRequest): Promise<ApiRequest> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  const tooLarge = () => new TooLargeError(`The request body is over ${MAX_BODY_SIZE_IN_BYTES} bytes`);
  if (declared > MAX_BODY_SIZE_IN_BYTES) throw tooLarge();
  const body = Buffer.from(await request.arrayBuffer());
  if (body.length > MAX_BODY_SIZE_IN_BYTES) throw tooLarge();
  return {
    method: request.method.toUpperCase(),
    url: new URL(request.url),
    params: { ...request.params },
    headers: { get: (name) => request.headers.get(name) },
    bodyText: body.length > 0 ? body.toString('utf8') : undefined,
  };
}

export function toHttpResponse(response: ApiResponse): HttpResponseInit {
  const headers: Record<string, string> = { ...response.headers };
  if (response.body === undefined) return { status: response.status, headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json; charset=utf-8';
  return { status: response.status, headers, body: JSON.stringify(response.body) };
}

export function handleRoute(route: RouteDefinition, request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  return inInvocation(context, async () => {
    try {
      const apiRequest = await toApiRequest(request);
      const services = await servicesFor(context);
      return toHttpResponse(await withSpan(`Http.${route.name}`, {}, () => route.handle(apiRequest, services)));
    } catch (error) {
      return toHttpResponse(problemResponse(error, (message, cause) => context.error(message, cause)));
    }
  });
}

for (const route of routes) {
  app.http(route.name, {
    methods: [...route.methods],
    route: route.route,
    authLevel: route.authLevel,
    extraInputs: [df.input.durableClient()],
    handler: (request, context) => handleRoute(route, request, context),
  });
}

// No catch-all route (`{*path}`): the Functions host orders HTTP functions by name and the first whose
// route matches wins (Azure/azure-functions-host#9876), so a catch-all named `notFound` answered
// putWorkflow, sendTrigger, sendInstanceTrigger, recoverInstance and openApi with 404. Paths no function
// takes get the host's own 404 on Azure; the local server still answers them with problem+json.
