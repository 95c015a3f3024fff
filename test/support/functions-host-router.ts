/**
 * How the Functions host routes HTTP requests to the functions an app registered (captured from
 * `@azure/functions-core` by a test's stand-in), so that tests call a handler the way Azure would.
 */
import { HttpRequest, type HttpHandler, type HttpResponseInit } from '@azure/functions';
import type { InvocationContext } from '@azure/functions';

export interface RegisteredBinding {
  readonly type: string;
  readonly direction: string;
  readonly authLevel?: string;
  readonly methods?: string[];
  readonly route?: string;
}

export interface RegisteredFunction {
  readonly name: string;
  readonly bindings: Record<string, RegisteredBinding>;
}

/** The binding that triggers a function (httpTrigger, timerTrigger, activityTrigger...). */
export function triggerOf(fn: RegisteredFunction): RegisteredBinding {
  return Object.values(fn.bindings).find((binding) => binding.type.endsWith('Trigger'))!;
}

/**
 * The route parameters `template` binds for `path` (`{name}` one segment, `{*name}` the rest, decoded),
 * or undefined when it does not match. Literal segments compare ignoring case, as the host does.
 */
export function routeParams(template: string, path: string): Record<string, string> | undefined {
  const pattern = template.split('/');
  const segments = path.split('/');
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index++) {
    const part = pattern[index]!;
    if (part.startsWith('{*')) {
      params[part.slice(2, -1)] = decodeURIComponent(segments.slice(index).join('/'));
      return params;
    }
    const segment = segments[index];
    if (segment === undefined) return undefined;
    if (part.startsWith('{')) params[part.slice(1, -1)] = decodeURIComponent(segment);
    else if (part.toLowerCase() !== segment.toLowerCase()) return undefined;
  }
  return segments.length === pattern.length ? params : undefined;
}

/**
 * The host's choice (Azure/azure-functions-host#9876): the functions in name order, the first whose route
 * template and methods match wins. No specificity ranking, so a catch-all sorted early shadows later routes.
 */
export function hostRouter<Fn extends RegisteredFunction>(functions: readonly Fn[], ordering: 'ordinal' | 'ignoring case' = 'ordinal'): (method: string, path: string) => Fn | undefined {
  const key = (fn: Fn) => (ordering === 'ordinal' ? fn.name : fn.name.toLowerCase());
  const ordered = [...functions].filter((fn) => triggerOf(fn).type === 'httpTrigger').sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return (method, path) => ordered.find((fn) => triggerOf(fn).methods?.includes(method) && routeParams(triggerOf(fn).route ?? fn.name, path) !== undefined);
}

/**
 * Sends a request to the app as the host would: routed by hostRouter, the route's parameters bound, the
 * handler called with `context`. `path` is below `/api/`.
 */
export async function callAsHost(
  registrations: ReadonlyArray<readonly [RegisteredFunction, HttpHandler]>,
  context: () => InvocationContext,
  request: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ readonly functionName: string; readonly status: number; readonly body: string | undefined }> {
  const route = hostRouter(registrations.map(([fn]) => fn));
  const fn = route(request.method, request.path.split('?')[0]!);
  if (!fn) throw new Error(`no function takes ${request.method} /api/${request.path}`);
  const handler = registrations.find(([candidate]) => candidate === fn)![1];
  const url = new URL(`https://signalbox.example/api/${request.path}`);
  const params = routeParams(triggerOf(fn).route ?? fn.name, url.pathname.slice('/api/'.length))!;
  const response = (await handler(
    new HttpRequest({ method: request.method, url: url.href, headers: request.headers ?? {}, params, ...(request.body !== undefined ? { body: { string: request.body } } : {}) }),
    context(),
  )) as HttpResponseInit;
  return { functionName: fn.name, status: response.status ?? 200, body: typeof response.body === 'string' ? response.body : undefined };
}
