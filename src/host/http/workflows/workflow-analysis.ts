/**
 * @module Routes that explain a workflow without changing anything: definition analysis (validate) and
 * Mermaid diagrams. The engine's pure analysis decides; these routes only load what it needs.
 */
import { z } from 'zod';
import { buildDefinitionGraph, checkDefinition, mermaidStateDiagram } from '../../../engine/analysis';
import { ValidationError } from '../../../engine/model';
import { Role } from '../access';
import { definitionCheckSchema, workflowDefinitionReference } from '../api-schemas';
import { defineRoute } from '../route';
import { type RouteDefinition } from '../types';

const diagramQuery = z.object({
  version: z.coerce.number().int().min(1).optional().meta({ description: "The version to draw; the latest (or the instance's) by default." }),
  instanceId: z.string().min(1).max(128).optional().meta({ description: "Highlight this instance's current state (drawn on its version unless `version` says otherwise)." }),
});

export const workflowAnalysisRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'validateWorkflow',
    methods: ['POST'],
    route: 'workflows/validate',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Validate and analyse a definition, storing nothing',
      description: 'An invalid definition is an answer here (200, `valid: false`, every problem by JSON path), not a failed request. Warnings need a valid definition.',
      tags: ['workflows'],
      body: workflowDefinitionReference,
      withoutStorage: true,
      responses: { 200: { description: 'The verdict.', body: definitionCheckSchema } },
    },
    async handle({ body }, { engine }) {
      // An invalid definition is an answer here, not a failed request: 200 with its errors.
      return { status: 200, body: checkDefinition(body, engine.options.registry) };
    },
  }),
  defineRoute({
    name: 'getWorkflowDiagram',
    methods: ['GET'],
    route: 'workflows/{workflowId}/diagram',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Draw a workflow as a Mermaid state diagram',
      description: 'A Mermaid `stateDiagram-v2`: every state by its display name, the initial and final states, every transition labelled with its trigger names or its timer.',
      tags: ['workflows'],
      path: z.object({ workflowId: z.string() }),
      query: diagramQuery,
      responses: {
        200: { description: 'The diagram.', body: z.string(), contentType: 'text/plain; charset=utf-8' },
        400: 'An unknown or malformed query parameter, or the instance belongs to another workflow.',
        404: 'No such workflow, version or instance.',
      },
    },
    async handle({ params: { workflowId }, query: { version, instanceId } }, { engine }) {
      const instance = instanceId === undefined ? undefined : await engine.getInstance(instanceId);
      if (instance && instance.workflowId !== workflowId) {
        throw new ValidationError('The query string is invalid', [{ path: 'instanceId', message: `instance "${instance.id}" belongs to workflow "${instance.workflowId}", not "${workflowId}"` }]);
      }
      // An instance is drawn on the version it is pinned to unless another version is asked for.
      const workflow = await engine.getWorkflow(workflowId, version ?? instance?.workflowVersion);
      const text = mermaidStateDiagram(buildDefinitionGraph(workflow.definition), { highlightStateId: instance?.stateId });
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, text };
    },
  }),
];
