/** @module /api/workflows: versioned definitions with ETags. */
import { z } from 'zod';
import { analyzeDefinition } from '../../engine/analysis';
import { readJsonBody } from './request-body';
import { pageQuerySchema, parseQuery } from './query';
import { pageBody, workflowBody } from './representations';
import type { RouteDefinition } from './types';
import type { WorkflowVersion } from '../../engine/definition';

function workflowResponse(status: number, workflow: WorkflowVersion, location?: string) {
  return {
    status,
    headers: { etag: workflow.etag, ...(location ? { location } : {}) },
    body: workflowBody(workflow),
  };
}

/** PUT and POST answer with the analysis' warnings too: they never block storing a definition. */
function storedWorkflowResponse(status: number, workflow: WorkflowVersion, location?: string) {
  const response = workflowResponse(status, workflow, location);
  return { ...response, body: { ...response.body, warnings: analyzeDefinition(workflow.definition) } };
}

export const workflowRoutes: readonly RouteDefinition[] = [
  {
    name: 'putWorkflow',
    methods: ['PUT'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    async handle(request, { engine }) {
      const body = readJsonBody(request);
      const ifMatch = request.headers.get('if-match') ?? undefined;
      const { workflow, created } = await engine.updateWorkflow(request.params.workflowId!, body, { ifMatch });
      return storedWorkflowResponse(created ? 201 : 200, workflow, created ? `/api/workflows/${encodeURIComponent(workflow.definition.id)}` : undefined);
    },
  },
  {
    name: 'createWorkflow',
    methods: ['POST'],
    route: 'workflows',
    authLevel: 'function',
    async handle(request, { engine }) {
      const workflow = await engine.createWorkflow(readJsonBody(request));
      return storedWorkflowResponse(201, workflow, `/api/workflows/${encodeURIComponent(workflow.definition.id)}`);
    },
  },
  {
    name: 'getWorkflow',
    methods: ['GET'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    async handle(request, { engine }) {
      const { version } = parseQuery(request, { version: z.coerce.number().int().min(1).optional() });
      const workflowId = request.params.workflowId!;
      return workflowResponse(200, await engine.getWorkflow(workflowId, version));
    },
  },
  {
    name: 'listWorkflows',
    methods: ['GET'],
    route: 'workflows',
    authLevel: 'function',
    async handle(request, { engine }) {
      const page = await engine.listWorkflows(parseQuery(request, pageQuerySchema));
      return { status: 200, body: pageBody(page.items, page) };
    },
  },
];
