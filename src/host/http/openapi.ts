/**
 * @module The OpenAPI 3.1 document of the API, built by zod-openapi from each route's contract (the zod
 * schemas the handlers parse with and the bodies they answer), so it cannot drift from the code. The
 * workflow definition is the one JSON Schema not written in zod (its steps come from the registry): its
 * `$defs` become components of their own, since nested `$defs` confuse client generators.
 *
 * Paths are relative to the server URL `/api`, so the azd output SIGNALBOX_API_BASE_URL
 * (`https://<app>/api`) is a base URL for a client generated from this document.
 */
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { workflowDefinitionJsonSchema } from '../../engine/analysis';
import type { Registry } from '../../engine/steps';
import { problemSchema } from './api-schemas';
import type { ResponseContract, RouteContract, RouteDefinition } from './types';
import { publicRoute } from './access';

type Json = Record<string, unknown>;

const tags = [
  { name: 'workflows', description: 'Versioned workflow definitions, with ETags.' },
  { name: 'instances', description: 'Workflow instances: create, read, find, history, recover, cancel.' },
  { name: 'triggers', description: 'Triggers and the long-running operations that dispatch them.' },
  { name: 'tasks', description: 'Human tasks: the inbox, claim, release, delegate, complete.' },
  { name: 'system', description: "Health, this document and the definition's JSON Schema." },
];

function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: problemSchema } } };
}

function response(contract: ResponseContract) {
  return {
    description: contract.description,
    ...(contract.headers ? { headers: contract.headers } : {}),
    ...(contract.body ? { content: { [contract.contentType ?? 'application/json']: { schema: contract.body } } } : {}),
  };
}

/** The route's own answers, plus the ones every route of its kind can give. */
function responsesOf(route: RouteDefinition): ZodOpenApiResponsesObject {
  const contract: RouteContract = route.contract;
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(contract.responses)) responses[status] = typeof answer === 'string' ? problem(answer) : response(answer);
  // Every route refuses unknown query parameters.
  const shared: Record<number, string> = { 400: `The request is invalid: an unknown or malformed query parameter${contract.body ? ', or an invalid body' : ''}. \`errors\` names each problem.` };
  if (route.role !== publicRoute) {
    shared[401] = 'A valid bearer token (`Authorization: Bearer`, when SIGNALBOX_AUTH_ISSUERS is set) or key (`x-functions-key` header or `code` query parameter) is required.';
    shared[403] = `The caller lacks the role ${route.role} (\`x-signalbox-role\`), or sent \`on-behalf-of\` without Signalbox.Impersonate${route.methods.some((method) => method !== 'GET') ? "; or the request comes from a browser on an origin other than this server's and the CORS origins (`Sec-Fetch-Site` or `Origin`)" : ''}.`;
  }
  if (contract.body) {
    shared[413] =
      route.bodyLimit === 'instanceCreation'
        ? 'The body is over 1 MiB (over SIGNALBOX_MAX_CREATE_BODY_MB when that is set), or the instance would be over SIGNALBOX_MAX_INSTANCE_MB (16 MiB by default).'
        : 'The body is over 1 MiB.';
    shared[415] = 'The body is not `application/json`.';
  }
  // What keeps web pages out (request-guard.ts, decision 0019): a browser's Sec-Fetch-Site and Origin.
  if (route.methods.some((method) => method !== 'GET')) {
    shared[403] ??= "The request comes from a browser on an origin other than this server's and the CORS origins (`Sec-Fetch-Site` or `Origin`).";
    // A route without a body takes none (curl's bare `-X POST` or `-X DELETE`), or an ignored JSON one.
    if (!contract.body) shared[415] = 'The request has a body that is not `application/json`: this operation takes none.';
  }
  if (!contract.withoutStorage) shared[503] = 'Storage is unavailable or the instance is busy: retry after Retry-After.';
  for (const [status, description] of Object.entries(shared)) responses[status] ??= problem(description);
  if (responses[503]) (responses[503] as Json).headers = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string' } } };
  return responses as ZodOpenApiResponsesObject;
}

function operationOf(route: RouteDefinition): ZodOpenApiOperationObject {
  const { contract } = route;
  const requestParams = {
    ...(contract.path ? { path: contract.path } : {}),
    ...(contract.query ? { query: contract.query } : {}),
    ...(contract.headers ? { header: contract.headers } : {}),
  };
  return {
    operationId: route.name,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    tags: [...contract.tags],
    ...(Object.keys(requestParams).length ? { requestParams } : {}),
    ...(contract.body ? { requestBody: { required: true, content: { 'application/json': { schema: contract.body } } } } : {}),
    responses: responsesOf(route),
    security: route.role !== publicRoute ? [{ bearerToken: [] }, { functionKey: [] }, { functionKeyQuery: [] }] : [],
    // The app role the route needs (access.ts), or `public`: the README's table and a test hold every route to it.
    'x-signalbox-role': route.role,
  } as ZodOpenApiOperationObject;
}

/**
 * The definition's schema as components: `WorkflowDefinition` (what a client sends), `Workflow` (a
 * stored version: plus `version` and `etag`) and one component per `$defs` entry.
 */
function definitionComponents(registry: Registry | undefined): Json {
  const standalone = workflowDefinitionJsonSchema(registry);
  const rerooted = JSON.parse(JSON.stringify(standalone).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  const { $schema: _dialect, $id: _id, $defs, ...definition } = rerooted;
  const properties = definition.properties as Json;
  const workflow = {
    ...definition,
    title: 'Signalbox workflow (a stored version)',
    properties: { ...properties, version: { type: 'integer', minimum: 1 }, etag: { type: 'string' } },
    required: [...((definition.required as string[] | undefined) ?? []), 'version', 'etag'],
  };
  // Editors get `if`/`then` per type (one error for a bad `type`); an OpenAPI document says the same
  // with its own discriminator, which client generators turn into a union of the step types.
  const steps: Json = {};
  for (const kind of ['condition', 'action']) {
    const types = ((($defs as Json)[kind] as Json).properties as { type: { enum: string[] } }).type.enum;
    steps[kind] = {
      description: (($defs as Json)[kind] as Json).description,
      oneOf: types.map((type) => ({ $ref: `#/components/schemas/${kind}.${type}` })),
      discriminator: { propertyName: 'type', mapping: Object.fromEntries(types.map((type) => [type, `#/components/schemas/${kind}.${type}`])) },
    };
  }
  const storedWorkflow = {
    ...workflow,
    title: 'Signalbox workflow (a stored version, as PUT and POST answer it)',
    properties: { ...(workflow.properties as Json), warnings: { type: 'array', items: { $ref: '#/components/schemas/DefinitionWarning' } } },
    required: [...workflow.required, 'warnings'],
  };
  return { ...($defs as Json), ...steps, WorkflowDefinition: definition, Workflow: workflow, StoredWorkflow: storedWorkflow };
}

/** The document for these routes; `registry` adds custom condition and action types to the schemas. */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], registry?: Registry): Json {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = `/${route.route}`;
    for (const method of route.methods) (paths[path] ??= {})[method.toLowerCase() as 'get'] = operationOf(route);
  }
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Signalbox',
      version: '1.0.0',
      description:
        'A state-machine workflow engine: workflows, instances, triggers and operations. Every error is `application/problem+json`; ' +
        'a method a path does not take answers 405, and a request that fails changes nothing.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: '/api', description: 'The server this document came from.' },
      {
        url: 'https://{functionAppHost}/api',
        description: 'A deployed Function app: the azd output SIGNALBOX_API_BASE_URL.',
        variables: { functionAppHost: { default: 'localhost:7071', description: 'AZURE_FUNCTION_APP_HOST_NAME' } },
      },
    ],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token for the API from a SIGNALBOX_AUTH_ISSUERS issuer (Microsoft Entra ID), its app roles in the `roles` claim.',
        },
        functionKey: { type: 'apiKey', in: 'header', name: 'x-functions-key', description: 'A function key (on Azure), or SIGNALBOX_API_KEY (locally, when set).' },
        functionKeyQuery: { type: 'apiKey', in: 'query', name: 'code', description: 'The same key as a query parameter (it may end up in logs: prefer the header).' },
      },
    },
  }) as unknown as Json;
  const components = (document.components ??= {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Json;
  // The definition's components come last; names zod-openapi already wrote (JsonValue) are the same schema.
  for (const [name, schema] of Object.entries(definitionComponents(registry))) schemas[name] ??= schema;
  // Any JSON value, said without recursion: TypeScript generators cannot type a union that contains
  // an array of itself (`JsonValue[]` in its own definition), and an open schema means the same here.
  schemas.JsonValue = { description: 'Any JSON value.' };
  components.schemas = schemas;
  return document;
}
