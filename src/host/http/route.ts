/**
 * @module The route table is the validator, as Hono's validator middleware is: a route declares its path,
 * query, headers and body as zod schemas (the OpenAPI document is built from the same ones), and the one
 * dispatcher here parses each part with them before the handler runs. The handler gets typed values,
 * inferred from the route's own schemas (path parameters from the route's `{placeholders}` when it
 * declares no path schema), and never parses the request again. Bad input is a ValidationError naming
 * the field, which both hosts answer as problem+json (400; 413 and 415 for bodies, request-body.ts).
 */
import { z } from 'zod';
import { ValidationError } from '../../engine/model';
import { formatPath } from '../../engine/model';
import { readJsonBody } from './request-body';
import { isStateChanging } from './request-guard';
import type { RouteRole } from './access';
import type { ApiRequest, ApiResponse, ApiServices, HttpMethod, RouteContract, RouteDefinition, SchemaReference } from './types';

/** `{a}` and `{b}` of `x/{a}/y/{b}`. */
type ParamNames<Route extends string> = Route extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
/** The parameters a route template names, each a decoded string. */
export type PathParams<Route extends string> = { readonly [Name in ParamNames<Route>]: string };

type Output<Schema, Otherwise> = Schema extends z.ZodType ? z.output<Schema> : Otherwise;
/** A body declared as a zod schema is parsed with it; one declared by reference (the workflow definition, whose steps come from the registry) arrives as parsed JSON for the engine to validate. */
type BodyOf<Body> = Body extends z.ZodType ? z.output<Body> : Body extends SchemaReference ? unknown : undefined;

/** What a handler receives: every part of the request, parsed with the route's own schemas. */
export interface RouteInput<Route extends string, Path, Query, Headers, Body> {
  readonly params: Output<Path, PathParams<Route>>;
  readonly query: Output<Query, Record<string, never>>;
  readonly headers: Output<Headers, Record<string, never>>;
  readonly body: BodyOf<Body>;
  /** The request as the host gave it, for what is not validated input (the principal, `Prefer`). */
  readonly request: ApiRequest;
}

export interface RouteSpec<
  Route extends string,
  Path extends z.ZodObject | undefined,
  Query extends z.ZodObject | undefined,
  Headers extends z.ZodObject | undefined,
  Body extends z.ZodType | SchemaReference | undefined,
> {
  readonly name: string;
  readonly methods: readonly HttpMethod[];
  readonly route: Route;
  readonly authLevel: 'anonymous' | 'function';
  /** The app role a caller needs, or `public` (access.ts). Required: a route without one does not compile. */
  readonly role: RouteRole;
  /** @default 'tenant' (see RouteDefinition) */
  readonly scope?: 'tenant' | 'deployment';
  /** @default the limit of every body (see RouteDefinition) */
  readonly bodyLimit?: 'instanceCreation';
  readonly contract: Omit<RouteContract, 'path' | 'query' | 'headers' | 'body'> & { readonly path?: Path; readonly query?: Query; readonly headers?: Headers; readonly body?: Body };
  /** The problem's `detail` when a zod body does not parse. @default 'The request body is invalid' */
  readonly invalidBody?: string;
  handle(input: RouteInput<Route, Path, Query, Headers, Body>, services: ApiServices): Promise<ApiResponse>;
}

/**
 * Parses or throws a ValidationError naming every problem. An unknown key is named as the field it is
 * (`colour`, `subjects`), not as the object that refused it.
 */
function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, message: string): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: issue.message })) : [{ path: formatPath(issue.path), message: issue.message }],
  );
  throw new ValidationError(message, issues);
}

/** Routes that take no query string: one schema for all of them. */
const noQuery = z.strictObject({});

/**
 * Turns a route's declaration into an entry of the route table whose `handle` validates first. The strict
 * query schema is built here, once per route, not once per request (polls are hot).
 */
export function defineRoute<
  Route extends string,
  Path extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
  Headers extends z.ZodObject | undefined = undefined,
  Body extends z.ZodType | SchemaReference | undefined = undefined,
>(spec: RouteSpec<Route, Path, Query, Headers, Body>): RouteDefinition {
  const { contract } = spec;
  // Unknown parameters are refused so that typos do not pass silently.
  const query = contract.query && Object.keys(contract.query.shape).length > 0 ? z.strictObject(contract.query.shape) : noQuery;
  const headerNames = contract.headers ? Object.keys(contract.headers.shape) : [];
  const invalidBody = spec.invalidBody ?? 'The request body is invalid';
  return {
    name: spec.name,
    methods: spec.methods,
    route: spec.route,
    authLevel: spec.authLevel,
    role: spec.role,
    ...(spec.scope ? { scope: spec.scope } : {}),
    ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
    contract: contract as RouteContract,
    handle(request, services) {
      const params = contract.path ? parseInput(contract.path, request.params, 'The path is invalid') : request.params;
      const input = {
        params,
        query: parseQueryString(request, query),
        headers: contract.headers ? parseInput(contract.headers, headerValues(request, headerNames), 'The request headers are invalid') : {},
        body: parseBody(request, contract.body, invalidBody),
        request,
      };
      return spec.handle(input as RouteInput<Route, Path, Query, Headers, Body>, services);
    },
  };
}

function parseQueryString(request: ApiRequest, schema: z.ZodObject): unknown {
  const searchParams = request.url.searchParams;
  // The common case, no query string at all, needs no parse when nothing is required.
  if (searchParams.size === 0 && schema === noQuery) return {};
  const values: Record<string, string> = {};
  for (const [key, value] of searchParams) values[key] = value;
  // `code` is the Azure Functions key parameter: accepted everywhere, never ours to interpret.
  delete values.code;
  return parseInput(schema, values, 'The query string is invalid');
}

/** The declared headers only (names as declared: HTTP header names are case-insensitive). */
function headerValues(request: ApiRequest, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers.get(name);
    if (value !== null) values[name] = value;
  }
  return values;
}

/**
 * A declared body is required and parsed; a route that declares none ignores one on GET, and on the methods
 * that change something takes none or a JSON one (which it ignores): a form's body or text is a 415, so
 * that no request a page's form could make reaches a handler (decision 0019), whatever its headers.
 */
function parseBody(request: ApiRequest, body: z.ZodType | SchemaReference | undefined, invalidBody: string): unknown {
  if (body === undefined) {
    if (isStateChanging(request.method)) readJsonBody(request, { optional: true });
    return undefined;
  }
  const json = readJsonBody(request);
  return body instanceof z.ZodType ? parseInput(body, json, invalidBody) : json;
}
