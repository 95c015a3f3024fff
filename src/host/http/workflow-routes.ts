/** @module /api/workflows: versioned definitions with ETags. */
import { z } from 'zod';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../../engine/errors';
import type { Engine } from '../../engine/engine';
import { analyzeDefinition, outboundHostWarnings } from '../../engine/analysis';
import { createdHeaders, etagHeaders, ifNoneMatchHeaders, pageSchemaOf, storedWorkflowReference, workflowDefinitionReference, workflowReference, workflowSummarySchema } from './api-schemas';
import { readJsonBody } from './request-body';
import { pageQuerySchema, parseQuery } from './query';
import { pageBody, workflowBody } from './representations';
import type { RouteDefinition } from './types';
import type { WorkflowVersion } from '../../engine/definition';
import { jsonEqual } from '../../engine/json-equal';
import type { JsonValue } from '../../engine/json';

function workflowResponse(status: number, workflow: WorkflowVersion, location?: string) {
  return {
    status,
    headers: { etag: workflow.etag, ...(location ? { location } : {}) },
    body: workflowBody(workflow),
  };
}

/**
 * PUT semantics: the body's `id`, if any, must be the route's; without If-Match the workflow is created
 * (version 1) if new, else 409; with If-Match (the latest ETag, or `*`) a version is added, and If-Match
 * on a workflow that does not exist fails the precondition (412) rather than creating it. A definition
 * equal to the latest version's is not a new version: the latest is answered as it is (so pushing the
 * same file twice leaves one version), unless `force` asks for a version anyway.
 */
export async function putWorkflow(engine: Engine, workflowId: string, body: unknown, ifMatch: string | undefined, options: { force?: boolean } = {}): Promise<{ workflow: WorkflowVersion; created: boolean }> {
  let input = body;
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const id = (input as { id?: unknown }).id;
    if (id !== undefined && id !== workflowId) {
      throw new ValidationError('The workflow definition is invalid', [{ path: 'id', message: `the body's id "${String(id)}" differs from the workflow id "${workflowId}" in the request` }]);
    }
    input = { ...input, id: workflowId };
  }
  const definition = engine.validateWorkflow(input);
  if (!ifMatch) {
    if (await engine.workflows.find(workflowId)) throw new ConflictError(`Workflow "${workflowId}" exists: send If-Match with its ETag (or *) to add a version`);
    return { workflow: await engine.workflows.create(definition), created: true };
  }
  if (!options.force) {
    const latest = await engine.workflows.find(workflowId);
    // A stale ETag is refused by addVersion below (412), even for an unchanged body.
    if (latest && (ifMatch === '*' || ifMatch === latest.etag) && jsonEqual(latest.definition as unknown as JsonValue, definition as unknown as JsonValue)) {
      return { workflow: latest, created: false };
    }
  }
  try {
    return { workflow: await engine.workflows.addVersion(definition, { ifMatch }), created: false };
  } catch (error) {
    if (error instanceof NotFoundError) throw new PreconditionFailedError(`Workflow "${workflowId}" does not exist, so If-Match cannot match`, { cause: error });
    throw error;
  }
}
/**
 * PUT and POST answer with the analysis' warnings too: they never block storing a definition. With them,
 * the URLs this host's outbound clients would refuse (the allow-list is the host's, not the definition's).
 */
function storedWorkflowResponse(engine: Engine, status: number, workflow: WorkflowVersion, location?: string) {
  const response = workflowResponse(status, workflow, location);
  const hosts = outboundHostWarnings(workflow.definition, { events: engine.options.events.http, steps: engine.options.http });
  return { ...response, body: { ...response.body, warnings: [...analyzeDefinition(workflow.definition), ...hosts] } };
}

const workflowPath = z.object({ workflowId: z.string().meta({ description: 'The workflow id (the definition\'s `id`).' }) });
const putWorkflowQuery = z.object({
  force: z.enum(['true', 'false']).optional().meta({ description: '`true` adds a version even when the definition equals the latest one (which otherwise answers 200 with the latest, unchanged).' }),
});
const getWorkflowQuery = z.object({ version: z.coerce.number().int().min(1).optional().meta({ description: 'An older version; the latest by default.' }) });
const listWorkflowsQuery = z.object(pageQuerySchema);

export const workflowRoutes: readonly RouteDefinition[] = [
  {
    name: 'putWorkflow',
    methods: ['PUT'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    contract: {
      summary: 'Create or version a workflow',
      tags: ['workflows'],
      path: workflowPath,
      query: putWorkflowQuery,
      headers: z.object({ 'If-Match': z.string().optional().meta({ description: 'The current ETag (or `*`) to add a version; without it an existing workflow is a 409.' }) }),
      body: workflowDefinitionReference,
      responses: {
        200: { description: 'A new version (If-Match matched), with the analysis\' warnings; or, when the definition equals the latest version\'s (and `force` is not `true`), the latest version as it is: same `version`, same ETag, nothing stored.', body: storedWorkflowReference, headers: etagHeaders },
        201: { description: 'Created: version 1, with the analysis\' warnings.', body: storedWorkflowReference, headers: createdHeaders },
        400: 'The definition is invalid (every problem listed), or its `id` differs from the route\'s.',
        409: 'The workflow exists and no If-Match was sent.',
        412: 'If-Match is not the current ETag.',
      },
    },
    async handle(request, { engine }) {
      const body = readJsonBody(request);
      const ifMatch = request.headers.get('if-match') ?? undefined;
      const { force } = parseQuery(request, putWorkflowQuery);
      const { workflow, created } = await putWorkflow(engine, request.params.workflowId!, body, ifMatch, { force: force === 'true' });
      return storedWorkflowResponse(engine, created ? 201 : 200, workflow, created ? `/api/workflows/${encodeURIComponent(workflow.definition.id)}` : undefined);
    },
  },
  {
    name: 'createWorkflow',
    methods: ['POST'],
    route: 'workflows',
    authLevel: 'function',
    contract: {
      summary: 'Create a workflow',
      tags: ['workflows'],
      body: workflowDefinitionReference,
      responses: {
        201: { description: 'Created: version 1, with the analysis\' warnings.', body: storedWorkflowReference, headers: createdHeaders },
        400: 'The definition is invalid; every problem is listed.',
        409: 'A workflow with this id exists.',
      },
    },
    async handle(request, { engine }) {
      // Parsed at the edge: the service stores the typed, validated definition.
      const definition = engine.validateWorkflow(readJsonBody(request));
      const workflow = await engine.workflows.create(definition);
      return storedWorkflowResponse(engine, 201, workflow, `/api/workflows/${encodeURIComponent(workflow.definition.id)}`);
    },
  },
  {
    name: 'getWorkflow',
    methods: ['GET'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    contract: {
      summary: 'Read a workflow',
      tags: ['workflows'],
      path: workflowPath,
      query: getWorkflowQuery,
      headers: ifNoneMatchHeaders,
      responses: {
        200: { description: 'The latest version, or the one asked for.', body: workflowReference, headers: etagHeaders },
        304: { description: 'Not modified: If-None-Match names the current ETag.', headers: etagHeaders },
        404: 'No such workflow or version.',
      },
    },
    async handle(request, { engine }) {
      const { version } = parseQuery(request, getWorkflowQuery);
      const workflowId = request.params.workflowId!;
      return workflowResponse(200, await engine.getWorkflow(workflowId, version));
    },
  },
  {
    name: 'listWorkflows',
    methods: ['GET'],
    route: 'workflows',
    authLevel: 'function',
    contract: {
      summary: 'List workflows (latest versions)',
      tags: ['workflows'],
      query: listWorkflowsQuery,
      responses: { 200: { description: 'A page of workflows.', body: pageSchemaOf(workflowSummarySchema, 'WorkflowPage') } },
    },
    async handle(request, { engine }) {
      const page = await engine.listWorkflows(parseQuery(request, listWorkflowsQuery));
      return { status: 200, body: pageBody(page.items, page) };
    },
  },
];
