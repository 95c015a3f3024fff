/** @module /api/workflows: versioned definitions with ETags. */
import { Role } from '../access';
import { z } from 'zod';
import type { Engine } from '../../../engine/engine';
import { analyzeDefinition, indexKeyWarnings, outboundHostWarnings } from '../../../engine/analysis';
import { createdHeaders, etagHeaders, ifNoneMatchHeaders, pageSchemaOf, storedWorkflowReference, workflowDefinitionReference, workflowReference, workflowSummarySchema } from '../api-schemas';
import { pageQuerySchema } from '../query';
import { pageBody, workflowBody } from '../representations';
import { defineRoute } from '../route';
import type { RouteDefinition } from '../types';
import type { WorkflowVersion } from '../../../engine/definition';

function workflowResponse(status: number, workflow: WorkflowVersion, location?: string) {
  return {
    status,
    headers: { etag: workflow.etag, ...(location ? { location } : {}) },
    body: workflowBody(workflow),
  };
}

/**
 * PUT and POST answer with the analysis' warnings too: they never block storing a definition. With them,
 * the URLs this host's outbound clients would refuse (the allow-list is the host's, not the definition's),
 * and the sensitive indexes this host cannot index (it has no index key).
 */
function storedWorkflowResponse(engine: Engine, status: number, workflow: WorkflowVersion, location?: string) {
  const response = workflowResponse(status, workflow, location);
  const hosts = outboundHostWarnings(workflow.definition, { events: engine.options.events.http, steps: engine.options.http });
  const indexKey = indexKeyWarnings(workflow.definition, { indexKeyConfigured: Boolean(engine.options.searchHmacKey) });
  return { ...response, body: { ...response.body, warnings: [...analyzeDefinition(workflow.definition), ...hosts, ...indexKey] } };
}

const workflowPath = z.object({ workflowId: z.string().meta({ description: "The workflow id (the definition's `id`)." }) });
const putWorkflowQuery = z.object({
  force: z.enum(['true', 'false']).optional().meta({ description: '`true` adds a version even when the definition equals the latest one (which otherwise answers 200 with the latest, unchanged).' }),
});
const getWorkflowQuery = z.object({ version: z.coerce.number().int().min(1).optional().meta({ description: 'An older version; the latest by default.' }) });
const listWorkflowsQuery = z.object(pageQuerySchema);

export const workflowRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'putWorkflow',
    methods: ['PUT'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    role: Role.admin,
    contract: {
      summary: 'Create or version a workflow',
      tags: ['workflows'],
      path: workflowPath,
      query: putWorkflowQuery,
      headers: z.object({ 'If-Match': z.string().optional().meta({ description: 'The current ETag (or `*`) to add a version; without it an existing workflow is a 409.' }) }),
      body: workflowDefinitionReference,
      responses: {
        200: {
          description:
            "A new version (If-Match matched), with the analysis' warnings; or, when the definition equals the latest version's (and `force` is not `true`), the latest version as it is: same `version`, same ETag, nothing stored.",
          body: storedWorkflowReference,
          headers: etagHeaders,
        },
        201: { description: "Created: version 1, with the analysis' warnings.", body: storedWorkflowReference, headers: createdHeaders },
        400: "The definition is invalid (every problem listed), or its `id` differs from the route's.",
        409: 'The workflow exists and no If-Match was sent.',
        412: 'If-Match is not the current ETag.',
      },
    },
    async handle({ params, query, headers, body }, { engine }) {
      const ifMatch = headers['If-Match'];
      const { workflow, created } = await engine.putWorkflow(params.workflowId, body, { ...(ifMatch ? { ifMatch } : {}), force: query.force === 'true' });
      return storedWorkflowResponse(engine, created ? 201 : 200, workflow, created ? `/api/workflows/${encodeURIComponent(workflow.definition.id)}` : undefined);
    },
  }),
  defineRoute({
    name: 'createWorkflow',
    methods: ['POST'],
    route: 'workflows',
    authLevel: 'function',
    role: Role.admin,
    contract: {
      summary: 'Create a workflow',
      tags: ['workflows'],
      body: workflowDefinitionReference,
      responses: {
        201: { description: "Created: version 1, with the analysis' warnings.", body: storedWorkflowReference, headers: createdHeaders },
        400: 'The definition is invalid; every problem is listed.',
        409: 'A workflow with this id exists.',
      },
    },
    async handle({ body }, { engine }) {
      // Validated at the edge against the registry: the service stores the typed definition.
      const definition = engine.validateWorkflow(body);
      const workflow = await engine.workflows.create(definition);
      return storedWorkflowResponse(engine, 201, workflow, `/api/workflows/${encodeURIComponent(workflow.definition.id)}`);
    },
  }),
  defineRoute({
    name: 'getWorkflow',
    methods: ['GET'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    role: Role.reader,
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
    async handle({ params, query }, { engine }) {
      return workflowResponse(200, await engine.getWorkflow(params.workflowId, query.version));
    },
  }),
  defineRoute({
    name: 'listWorkflows',
    methods: ['GET'],
    route: 'workflows',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'List workflows (latest versions)',
      tags: ['workflows'],
      query: listWorkflowsQuery,
      responses: { 200: { description: 'A page of workflows.', body: pageSchemaOf(workflowSummarySchema, 'WorkflowPage') } },
    },
    async handle({ query }, { engine }) {
      const page = await engine.listWorkflows(query);
      return { status: 200, body: pageBody(page.items, page) };
    },
  }),
];
